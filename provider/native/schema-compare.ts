/**
 * The schema gate's comparison: what in a new package schema breaks a program or a stack written
 * against an earlier release's. Its rules are those of Pulumi's own `schema-tools compare` (a
 * removed resource, function, type, input or output; a changed type; an input made required; an
 * output no longer always present), which cannot be installed here (the Go module proxy does not
 * serve it: docs/upgrades.md), plus the one it lacks: an input whose change updated the resource
 * in place and now replaces it, read from what the input's description says (CHANGE_NOTES).
 *
 * The stack config keys and the explicit provider's inputs count as inputs, enum values as members.
 *
 * A breaking change is allowed when a changelog section since the baseline release (`##
 * Unreleased`, or a later version's) lists it under `### Breaking`, by its subject in backquotes,
 * with how stacks move (`Stacks: …`).
 */
import { CHANGE_NOTES } from "./schema";

export interface SchemaChange {
  /** What changed: a token (`compute:index:Pod`), or a token and a member (`compute:index:Pod.registry`). */
  subject: string;
  /** How, in a few words. */
  change: string;
}

interface PropertyShape {
  type?: string;
  $ref?: string;
  items?: PropertyShape;
  additionalProperties?: PropertyShape;
  oneOf?: PropertyShape[];
  description?: string;
}

interface ObjectShape {
  type?: string;
  properties?: Record<string, PropertyShape>;
  required?: string[];
  /** An enum type's values. */
  enum?: Array<{ value: unknown; name?: string }>;
}

interface ResourceShape extends ObjectShape {
  inputProperties?: Record<string, PropertyShape>;
  requiredInputs?: string[];
}

interface FunctionShape {
  inputs?: ObjectShape;
  outputs?: ObjectShape;
}

export interface PackageSchema {
  version?: string;
  /** The provider's own settings (`compute:baseUrl`, …), as stack config and as provider inputs. */
  config?: { variables?: Record<string, PropertyShape>; defaults?: string[] };
  provider?: ResourceShape;
  resources?: Record<string, ResourceShape>;
  functions?: Record<string, FunctionShape>;
  types?: Record<string, ObjectShape>;
}

/** A property's type in one line: `string`, `array<string>`, `map<integer>`, `compute:index:PodGpu`. */
function typeOf(property: PropertyShape): string {
  if (property.$ref) return property.$ref.replace(/^#\/types\//, "");
  if (property.oneOf) return property.oneOf.map(typeOf).join(" | ");
  if (property.type === "array" && property.items) return `array<${typeOf(property.items)}>`;
  if (property.type === "object" && property.additionalProperties) return `map<${typeOf(property.additionalProperties)}>`;
  return property.type ?? "any";
}

/** What a change of the input does, as its description says; how disruptive, in order. */
const EFFECT_ORDER = ["nothing", "update", "depends", "replace"] as const;
function effectOf(property: PropertyShape): number {
  const effect = (Object.keys(CHANGE_NOTES) as Array<keyof typeof CHANGE_NOTES>).find((key) => property.description?.endsWith(CHANGE_NOTES[key]));
  return effect ? EFFECT_ORDER.indexOf(effect) : -1;
}

/** Members of one object (a resource's inputs, its outputs, a function's, a type's) that were taken away or retyped. */
function members(subject: string, what: string, older: Record<string, PropertyShape> = {}, newer: Record<string, PropertyShape> = {}): SchemaChange[] {
  const out: SchemaChange[] = [];
  for (const [name, before] of Object.entries(older)) {
    const after = newer[name];
    if (!after) out.push({ subject: `${subject}.${name}`, change: `${what} removed` });
    else if (typeOf(before) !== typeOf(after)) out.push({ subject: `${subject}.${name}`, change: `${what} type changed from ${typeOf(before)} to ${typeOf(after)}` });
  }
  return out;
}

/** Members a program must now give (inputs), or may no longer count on (outputs). */
function required(subject: string, direction: "in" | "out", older: string[] = [], newer: string[] = []): SchemaChange[] {
  if (direction === "in") return newer.filter((name) => !older.includes(name)).map((name) => ({ subject: `${subject}.${name}`, change: "input is now required" }));
  return older.filter((name) => !newer.includes(name)).map((name) => ({ subject: `${subject}.${name}`, change: "output is no longer always present" }));
}

/** The object types reachable from what programs give (`in`) or read (`out`). */
function typesUsed(schema: PackageSchema, direction: "in" | "out"): Set<string> {
  const found = new Set<string>();
  const visit = (property: PropertyShape | undefined): void => {
    if (!property) return;
    const ref = property.$ref?.replace(/^#\/types\//, "");
    if (ref && !found.has(ref)) {
      found.add(ref);
      Object.values(schema.types?.[ref]?.properties ?? {}).forEach(visit);
    }
    [property.items, property.additionalProperties, ...(property.oneOf ?? [])].forEach(visit);
  };
  for (const resource of Object.values(schema.resources ?? {})) Object.values((direction === "in" ? resource.inputProperties : resource.properties) ?? {}).forEach(visit);
  for (const fn of Object.values(schema.functions ?? {})) Object.values((direction === "in" ? fn.inputs : fn.outputs)?.properties ?? {}).forEach(visit);
  return found;
}

/** Every breaking change from `older` to `newer`. */
export function breakingChanges(older: PackageSchema, newer: PackageSchema): SchemaChange[] {
  const out: SchemaChange[] = [];
  // The settings every stack gives: stack config keys, and the explicit provider's inputs.
  out.push(...members("compute:config", "setting", older.config?.variables, newer.config?.variables));
  out.push(...required("compute:config", "in", older.config?.defaults, newer.config?.defaults));
  out.push(...members("pulumi:providers:compute", "input", older.provider?.inputProperties, newer.provider?.inputProperties));
  out.push(...required("pulumi:providers:compute", "in", older.provider?.requiredInputs, newer.provider?.requiredInputs));
  for (const [token, before] of Object.entries(older.resources ?? {})) {
    const after = newer.resources?.[token];
    if (!after) {
      out.push({ subject: token, change: "resource removed" });
      continue;
    }
    out.push(...members(token, "input", before.inputProperties, after.inputProperties));
    out.push(...required(token, "in", before.requiredInputs, after.requiredInputs));
    for (const [name, input] of Object.entries(before.inputProperties ?? {})) {
      const now = after.inputProperties?.[name];
      if (now && effectOf(now) > effectOf(input) && effectOf(now) > EFFECT_ORDER.indexOf("update")) {
        const was = effectOf(input) < 0 ? "said nothing of it" : { nothing: "did nothing", update: "updated it in place", depends: "replaced it only for some values", replace: "" }[EFFECT_ORDER[effectOf(input)]!];
        out.push({ subject: `${token}.${name}`, change: `a change now ${EFFECT_ORDER[effectOf(now)] === "replace" ? "replaces the resource" : "may replace the resource"} (it ${was})` });
      }
    }
    out.push(...members(token, "output", before.properties, after.properties));
    out.push(...required(token, "out", before.required, after.required));
  }
  for (const [token, before] of Object.entries(older.functions ?? {})) {
    const after = newer.functions?.[token];
    if (!after) {
      out.push({ subject: token, change: "function removed" });
      continue;
    }
    out.push(...members(token, "input", before.inputs?.properties, after.inputs?.properties));
    out.push(...required(token, "in", before.inputs?.required, after.inputs?.required));
    out.push(...members(token, "output", before.outputs?.properties, after.outputs?.properties));
    out.push(...required(token, "out", before.outputs?.required, after.outputs?.required));
  }
  const given = typesUsed(older, "in");
  const read = typesUsed(older, "out");
  for (const [token, before] of Object.entries(older.types ?? {})) {
    const after = newer.types?.[token];
    if (!after) {
      out.push({ subject: token, change: "type removed" });
      continue;
    }
    if (before.type !== after.type) out.push({ subject: token, change: `type changed from ${before.type} to ${after.type}` });
    const values = new Set((after.enum ?? []).map((entry) => JSON.stringify(entry.value)));
    for (const entry of before.enum ?? []) if (!values.has(JSON.stringify(entry.value))) out.push({ subject: `${token}.${String(entry.value)}`, change: "enum value removed" });
    out.push(...members(token, "property", before.properties, after.properties));
    // A type programs give must not ask for more; one they read must not promise less.
    if (given.has(token)) out.push(...required(token, "in", before.required, after.required));
    if (read.has(token)) out.push(...required(token, "out", before.required, after.required));
  }
  return out;
}

/** Orders two `major.minor.patch` versions (a pre-release suffix is ignored): negative when `a` is the earlier. */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((version) => version.split(/[.-]/).slice(0, 3).map(Number));
  for (let i = 0; i < 3; i++) if (x![i] !== y![i]) return (x![i] ?? 0) - (y![i] ?? 0);
  return 0;
}

/**
 * The bullets under `### Breaking` in the changelog's sections since `baseline`: `## Unreleased`,
 * and every `## <version>` later than it (a release moves its notes there before it is recorded).
 */
function breakingNotes(changelog: string, baseline: string): string[] {
  const sections = changelog.split(/^## /m).filter((section) => {
    const heading = /^(\S+)/.exec(section)?.[1] ?? "";
    return heading === "Unreleased" || (/^\d+\.\d+\.\d+/.test(heading) && compareVersions(heading, baseline) > 0);
  });
  return sections.flatMap((section) => (section.split(/^### /m).find((part) => /^Breaking\b/.test(part)) ?? "").split(/^- /m).slice(1));
}

/** The changes that no `### Breaking` note since `baseline` (a version) names, with how stacks move. */
export function unacknowledged(changes: SchemaChange[], changelog: string, baseline: string): SchemaChange[] {
  const notes = breakingNotes(changelog, baseline);
  return changes.filter((change) => !notes.some((note) => note.includes(`\`${change.subject}\``) && /Stacks:\s*\S/.test(note)));
}
