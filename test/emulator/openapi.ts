/**
 * Checks answers against the schemas of the service's public OpenAPI, copied verbatim into
 * test/fixtures/openapi/reference-openapi-v2.json. Shared by the emulator suites; not a test file.
 *
 * The document's schemas become zod schemas with zod's own JSON Schema reader (its references
 * `#/components/schemas/X` are rewritten to `#/$defs/X`, the form the reader resolves). Objects
 * stay open unless the document closes them, exactly as a client reading the document would.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { NULL_BEYOND_DOCUMENT } from "../../emulator/shape/public-views";

const DOCUMENT = join(__dirname, "..", "fixtures", "openapi", "reference-openapi-v2.json");

const defs = JSON.parse(
  JSON.stringify((JSON.parse(readFileSync(DOCUMENT, "utf8")) as { components: { schemas: object } }).components.schemas).replaceAll(
    "#/components/schemas/",
    "#/$defs/",
  ),
) as Record<string, object>;

const compiled = new Map<string, z.ZodType>();

function schemaOf(name: string): z.ZodType {
  if (!defs[name]) throw new Error(`the public OpenAPI has no schema ${name}`);
  let schema = compiled.get(name);
  if (!schema) {
    schema = z.fromJSONSchema({ $schema: "https://json-schema.org/draft/2020-12/schema", $defs: defs, $ref: `#/$defs/${name}` } as never) as z.ZodType;
    compiled.set(name, schema);
  }
  return schema;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The answer with the public shape's declared nulls beyond the document removed (those members
 * are optional there, so "absent" is what the document allows). Any other deviation still fails.
 */
function withoutDeclaredNulls(resourceSchema: string, value: unknown): unknown {
  const paths = NULL_BEYOND_DOCUMENT[resourceSchema] ?? [];
  if (!isObject(value) || paths.length === 0) return value;
  const copy = structuredClone(value);
  for (const path of paths) {
    const keys = path.split(".");
    let target: unknown = copy;
    for (const key of keys.slice(0, -1)) target = isObject(target) ? target[key] : undefined;
    const last = keys[keys.length - 1];
    if (isObject(target) && target[last] === null) delete target[last];
  }
  return copy;
}

/** Violations of `value` against the document's schema `name` ([] when it conforms). */
export function violations(name: string, value: unknown): string[] {
  const result = schemaOf(name).safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
}

/**
 * Violations of a public-shape answer: a single resource of schema `resource`, or a list wrapper
 * `{[member]: resource[]}` of schema `wrapper` when `list` is given.
 */
export function publicViolations(resource: string, body: unknown, list?: { wrapper: string; member: string }): string[] {
  if (!list) return violations(resource, withoutDeclaredNulls(resource, body));
  if (!isObject(body) || !Array.isArray(body[list.member])) return [`${list.member}: expected a list`];
  const items = body[list.member] as unknown[];
  return violations(list.wrapper, { ...body, [list.member]: items.map((item) => withoutDeclaredNulls(resource, item)) });
}
