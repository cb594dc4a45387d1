/**
 * The data-source functions (provider/functions.ts, `FUNCTIONS`) as the package schema
 * (schema.ts) describes them: each one's arguments and result in the vocabulary of
 * provider/properties.ts, derived from the same zod schemas the SDK reads the answers with,
 * so a member added to the contract reaches the schema without a word here.
 *
 * A member's type is that of the schema it is read with (under `optional`/`nullable` and before
 * any transform: the contract's transforms keep the type, e.g. an open enumeration stays a
 * string). Whether it is always there is what the SDK's tolerant reading makes of an answer
 * that leaves it out (contract/reading.ts): reading the smallest valid answer shows a member
 * filled in (required, e.g. a default or a name taken from the id), `null` (nullable) or
 * absent (optional).
 */
import { z } from "zod";
import { FUNCTIONS, type FunctionName } from "../functions";
import { coreSchema } from "../zod-core";
import type { FieldSpec } from "../properties";

type Members = Readonly<Record<string, FieldSpec>>;

export interface FunctionShape {
  readonly doc: string;
  /** The arguments, by name (`getHubRepo`'s one positional argument is `ref`). */
  readonly args: Members;
  /** A list result: the member that holds it, and what each item is. */
  readonly listMember?: string;
  /** The members of the result object, or of each item of a list result. */
  readonly result: Members;
}


/**
 * The schema without its rules between members (a lookup's "exactly one of id or name"): they
 * say nothing of whether each member may be left out, and the smallest answer breaks them.
 */
function withoutCrossMemberRules(schema: z.ZodType): z.ZodType {
  return schema instanceof z.ZodObject && (schema.def.checks?.length ?? 0) > 0 ? schema.clone({ ...schema.def, checks: [] }) : schema;
}

function objectOf(schema: z.ZodType, path: string): z.ZodObject {
  const object = coreSchema(schema);
  if (!(object instanceof z.ZodObject)) throw new Error(`${path}: not an object schema`);
  return object;
}

function fieldOf(schema: z.ZodType, path: string): FieldSpec {
  const read = coreSchema(schema);
  if (read instanceof z.ZodString) return { type: "string" };
  if (read instanceof z.ZodEnum) return { type: "string", enum: read.options.map(String) };
  if (read instanceof z.ZodNumber) return { type: read.isInt ? "integer" : "number" };
  if (read instanceof z.ZodBoolean) return { type: "boolean" };
  if (read instanceof z.ZodArray) return { type: "array", items: fieldOf(read.element as z.ZodType, `${path}[]`) };
  if (read instanceof z.ZodRecord) return { type: "map", additionalProperties: fieldOf(read.valueType as z.ZodType, `${path}{}`) };
  if (read instanceof z.ZodObject) return { type: "object", properties: membersOf(schema, path) };
  throw new Error(`${path}: no field type for a zod ${read.def.type} schema`);
}

/** The smallest value `schema` accepts: nothing when it may be left out, else null when it may be, else an empty one. */
function smallest(schema: z.ZodType, path: string): unknown {
  if (schema.safeParse(undefined).success) return undefined;
  if (schema.safeParse(null).success) return null;
  const read = coreSchema(schema);
  if (read instanceof z.ZodString) return "";
  if (read instanceof z.ZodEnum) return read.options[0];
  if (read instanceof z.ZodNumber) return 0;
  if (read instanceof z.ZodBoolean) return false;
  if (read instanceof z.ZodArray) return [];
  if (read instanceof z.ZodRecord) return {};
  if (read instanceof z.ZodObject) return smallestObject(read, path);
  throw new Error(`${path}: no smallest value for a zod ${read.def.type} schema`);
}

function smallestObject(object: z.ZodObject, path: string): Record<string, unknown> {
  const entries = Object.entries(object.shape).map(([key, member]) => [key, smallest(member as z.ZodType, `${path}.${key}`)] as const);
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
}

/** The members of the object `schema` reads, each with its presence in what the SDK returns. */
function membersOf(schema: z.ZodType, path: string): Members {
  const object = objectOf(schema, path);
  const parsed = withoutCrossMemberRules(schema).safeParse(smallestObject(object, path));
  if (!parsed.success) throw new Error(`${path}: the smallest answer does not read: ${parsed.error.message}`);
  const read = parsed.data as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(object.shape).map(([key, member]) => {
      const presence = read[key] === undefined ? { optional: true } : read[key] === null ? { nullable: true } : {};
      return [key, { ...fieldOf(member as z.ZodType, `${path}.${key}`), ...presence }];
    }),
  );
}

/** Keyed like `FUNCTIONS`; the schema token is `compute:index:<name>`. */
export const FUNCTION_SHAPES: Readonly<Record<FunctionName, FunctionShape>> = Object.fromEntries(
  Object.entries(FUNCTIONS).map(([name, fn]) => [
    name,
    {
      doc: fn.doc,
      args: membersOf(fn.args, `${name}(args)`),
      ...("listMember" in fn ? { listMember: fn.listMember } : {}),
      result: membersOf(fn.result, `${name}()`),
    },
  ]),
) as Record<FunctionName, FunctionShape>;
