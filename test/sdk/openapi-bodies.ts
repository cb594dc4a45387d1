/**
 * Response bodies built from the public OpenAPI itself (test/fixtures/openapi), not from our
 * schemas: its own examples, and bodies generated from each schema — only the required members,
 * every member, optional members `null`, every nullable member `null`, unknown members at every
 * level, and each enum value and `oneOf`/`anyOf` variant in turn. A test that parses these with
 * the SDK checks the SDK against the document, not against itself.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

type Json = any;
type Schema = Record<string, Json>;

export const PUBLIC_DOC: Schema = JSON.parse(readFileSync(join(__dirname, "../fixtures/openapi/reference-openapi-v2.json"), "utf8"));

/** The member every generated object gets in the "unknown members" variant. */
export const UNKNOWN_MEMBER = "futureMember";
const UNKNOWN_VALUE = { addedLater: [1, "two"] };

/** One schema with `$ref` followed and `allOf` merged; `variants` are its non-null `oneOf`/`anyOf` members. */
interface Flat {
  types: Set<string>;
  properties: Record<string, Schema>;
  required: Set<string>;
  items?: Schema;
  enum?: Json[];
  const?: Json;
  examples?: Json[];
  format?: string;
  minimum?: number;
  additionalProperties?: Json;
  variants: Schema[];
}

export function resolve(schema: Schema): Schema {
  let current = schema;
  while (current && typeof current.$ref === "string") {
    const path = (current.$ref as string).replace(/^#\//, "").split("/");
    let target: Json = PUBLIC_DOC;
    for (const part of path) target = target[part];
    current = { ...target, ...Object.fromEntries(Object.entries(current).filter(([k]) => k !== "$ref")) };
  }
  return current;
}

export function flatten(input: Schema): Flat {
  const schema = resolve(input);
  const flat: Flat = { types: new Set(), properties: {}, required: new Set(), variants: [] };
  const merge = (part: Flat) => {
    part.types.forEach((t) => flat.types.add(t));
    Object.assign(flat.properties, part.properties);
    part.required.forEach((r) => flat.required.add(r));
    flat.items ??= part.items;
    flat.enum ??= part.enum;
    flat.const ??= part.const;
    flat.examples ??= part.examples;
    flat.format ??= part.format;
    flat.minimum ??= part.minimum;
    flat.additionalProperties ??= part.additionalProperties;
    flat.variants.push(...part.variants);
  };
  for (const part of schema.allOf ?? []) merge(flatten(part));
  const type = schema.type;
  if (Array.isArray(type)) type.forEach((t: string) => flat.types.add(t));
  else if (typeof type === "string") flat.types.add(type);
  Object.assign(flat.properties, schema.properties ?? {});
  (schema.required ?? []).forEach((r: string) => flat.required.add(r));
  if (schema.items) flat.items = schema.items;
  if (schema.enum) flat.enum = schema.enum;
  if ("const" in schema) flat.const = schema.const;
  if (schema.examples) flat.examples = schema.examples;
  if (schema.format) flat.format = schema.format;
  if (schema.minimum !== undefined) flat.minimum = schema.minimum;
  if (schema.additionalProperties !== undefined) flat.additionalProperties = schema.additionalProperties;
  for (const variant of [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) {
    const resolved = resolve(variant);
    if (resolved.type === "null") flat.types.add("null");
    else flat.variants.push(variant);
  }
  if (Object.keys(flat.properties).length > 0) flat.types.add("object");
  return flat;
}

const nullable = (flat: Flat) => flat.types.has("null");

export type Mode = "minimal" | "full" | "optionalNull" | "nullableNull" | "unknownMembers";

interface Generation {
  mode: Mode;
  /** Path → index of the enum value or variant to use there (default 0). */
  choices: Map<string, number>;
  /** Filled while generating: path → number of enum values or variants offered there. */
  offered: Map<string, number>;
  /** Filled while generating: optional members the document does not make nullable, sent as null. */
  optionalNulls: string[];
  /** Filled while generating: object paths that received the unknown member. */
  unknownAt: string[];
}

const child = (path: string, key: string) => (path ? `${path}.${key}` : key);

function generate(input: Schema, path: string, gen: Generation): Json {
  const flat = flatten(input);
  if (flat.variants.length > 0) {
    gen.offered.set(path, flat.variants.length);
    const variant = flat.variants[gen.choices.get(path) ?? 0];
    // The chosen variant, with what the outer schema states around it (e.g. `required`).
    return generate({ ...variant, required: [...flat.required, ...(resolve(variant).required ?? [])] }, path, gen);
  }
  if (flat.const !== undefined) return flat.const;
  if (flat.enum) {
    gen.offered.set(path, flat.enum.length);
    return flat.enum[gen.choices.get(path) ?? 0];
  }
  const types = [...flat.types].filter((t) => t !== "null");
  const type = types[0] ?? (flat.items ? "array" : "string");
  switch (type) {
    case "object":
      return generateObject(flat, path, gen);
    case "array":
      // One item in every mode, so the item's own members are covered too.
      return flat.items ? [generate(flat.items, `${path}[0]`, gen)] : (flat.examples?.[0] ?? []);
    case "string":
      if (flat.examples?.[0] !== undefined && typeof flat.examples[0] === "string") return flat.examples[0];
      return flat.format === "date-time" ? "2026-06-01T12:00:00Z" : "text";
    case "integer":
    case "number":
      if (typeof flat.examples?.[0] === "number") return flat.examples[0];
      return flat.minimum ?? 1;
    case "boolean":
      return typeof flat.examples?.[0] === "boolean" ? flat.examples[0] : true;
    default:
      return flat.examples?.[0] ?? null;
  }
}

function generateObject(flat: Flat, path: string, gen: Generation): Json {
  const keys = Object.keys(flat.properties);
  if (keys.length === 0) {
    // A map (`additionalProperties`): the document's example, else one entry.
    if (flat.examples?.[0] !== undefined) return flat.examples[0];
    return typeof flat.additionalProperties === "object" ? { key: generate(flat.additionalProperties, child(path, "key"), gen) } : {};
  }
  const out: Record<string, Json> = {};
  for (const key of keys) {
    const schema = flat.properties[key];
    const required = flat.required.has(key);
    const at = child(path, key);
    if (gen.mode === "minimal" && !required) continue;
    if (gen.mode === "optionalNull" && !required) {
      out[key] = null;
      // Where the document itself allows null it is a value (e.g. `registry`: no credential),
      // which the SDK may keep; elsewhere null can only mean "absent" and must read so.
      if (!nullable(flatten(schema))) gen.optionalNulls.push(at);
      continue;
    }
    if (gen.mode === "nullableNull" && nullable(flatten(schema))) {
      out[key] = null;
      continue;
    }
    out[key] = generate(schema, at, gen);
  }
  if (gen.mode === "unknownMembers") {
    out[UNKNOWN_MEMBER] = UNKNOWN_VALUE;
    gen.unknownAt.push(path);
  }
  return out;
}

export interface Body {
  label: string;
  body: Json;
  /** For "optionalNull": optional, non-nullable members sent as null (they must read as absent). */
  optionalNulls: string[];
  /** For "unknownMembers": the objects that carry `UNKNOWN_MEMBER` (it must be kept). */
  unknownAt: string[];
}

function body(schemaName: string, mode: Mode, choices = new Map<string, number>()): Body & { offered: Map<string, number> } {
  const gen: Generation = { mode, choices, offered: new Map(), optionalNulls: [], unknownAt: [] };
  const value = generate({ $ref: `#/components/schemas/${schemaName}` }, "", gen);
  const choice = [...choices].map(([p, i]) => `${p || "(body)"}=#${i}`).join(", ");
  return { label: choice ? `${mode} with ${choice}` : mode, body: value, optionalNulls: gen.optionalNulls, unknownAt: gen.unknownAt, offered: gen.offered };
}

/** The examples the document gives for 2xx JSON answers whose schema is `schemaName`. */
export function documentExamples(schemaName: string): Body[] {
  const out: Body[] = [];
  for (const [route, operations] of Object.entries<Json>(PUBLIC_DOC.paths)) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      for (const [status, response] of Object.entries<Json>(operation?.responses ?? {})) {
        if (!status.startsWith("2")) continue;
        const content = response.content?.["application/json"];
        if (content?.schema?.$ref !== `#/components/schemas/${schemaName}`) continue;
        for (const [name, example] of Object.entries<Json>(content.examples ?? {})) {
          out.push({ label: `example "${name}" of ${method.toUpperCase()} ${route} ${status}`, body: example.value, optionalNulls: [], unknownAt: [] });
        }
      }
    }
  }
  return out;
}

/** Every body of `schemaName` this module can build (see the file comment). */
export function bodiesOf(schemaName: string): Body[] {
  const out: Body[] = [...documentExamples(schemaName)];
  for (const mode of ["minimal", "full", "optionalNull", "nullableNull", "unknownMembers"] as const) out.push(body(schemaName, mode));
  // Each enum value and each variant in turn, everywhere one is offered.
  const { offered } = body(schemaName, "full");
  for (const [path, count] of offered) {
    for (let index = 1; index < count; index += 1) out.push(body(schemaName, "full", new Map([[path, index]])));
  }
  return out;
}

/** The value at a generated path (`a.b[0].c`) of a parsed value. */
export function at(value: Json, path: string): Json {
  if (path === "") return value;
  let current = value;
  for (const part of path.split(/\.|(?=\[)/)) {
    if (current === undefined || current === null) return undefined;
    const index = /^\[(\d+)\]$/.exec(part);
    current = index ? current[Number(index[1])] : current[part];
  }
  return current;
}

/** The member names a request schema of the document accepts at its top level (closed schemas). */
export function acceptedMembers(schemaName: string): Set<string> {
  return new Set(Object.keys(flatten({ $ref: `#/components/schemas/${schemaName}` }).properties));
}

/** The response schema the document gives for a 2xx JSON answer of `method path`. */
export function responseSchemaOf(method: string, route: string): string | undefined {
  const responses = PUBLIC_DOC.paths[route]?.[method.toLowerCase()]?.responses ?? {};
  for (const [status, response] of Object.entries<Json>(responses)) {
    const ref = response.content?.["application/json"]?.schema?.$ref;
    if (status.startsWith("2") && typeof ref === "string") return ref.split("/").pop();
  }
  return undefined;
}
