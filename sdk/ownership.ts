/**
 * The owner mark: which stack resource a pod or sandbox belongs to, written on the resource
 * itself when it is created, so that a create that runs again after an interrupted `up` (a
 * killed CLI, a crashed provider host, a cancelled CI job) finds what the first attempt made
 * instead of making a second one, and so that `compute ps` can tell managed resources from
 * strays.
 *
 * Where it is written: pods and serverless endpoints have no labels, so an environment variable
 * (`env` is returned by every read, survives updates because the provider carries unmanaged
 * keys over, and is harmless inside the container); sandboxes carry a label (immutable, and the
 * list filters by it exactly). Network volumes, templates and registry credentials have nothing
 * but a name, so the name carries a compact form (`nameWithMark`); an SSH key carries it in its
 * authorized_keys comment (`keyWithMark`).
 *
 * The value: `<base>-<generation>[+<spec>]:<project>/<stack>/<resource name>`.
 * - `base` (24 hex) names the stack resource: a hash of organization, project, stack, the
 *   backend, the URN and a per-stack salt. Two stacks, or two resources of one stack, never
 *   share it.
 * - `generation` (12 hex) tells apart the successive resources one stack resource has had, so
 *   that a replacement never takes the resource it replaces. It is `000000000000` for a
 *   resource created when the state held none; a replacement's is derived from the recorded
 *   resource's (`nextGeneration`), so it is one no earlier resource of that base carries, and
 *   the same on every run (what lets a repeated replacement find its interrupted attempt).
 * - `spec` (8 hex) is a hash of the settings the resource was created from: a resource left
 *   behind with other settings than the ones now wanted is not adopted as if it matched.
 * The reasoning, with the engine's calls it rests on, is in docs/provider.md ("Interrupted runs").
 * The identity parts come first, so a service that cuts long values keeps them.
 */
import { createHash } from "node:crypto";
import { splitLifetimeTag } from "../contract/lifetime";

/** Environment variable of a pod that carries the owner mark. */
export const POD_OWNER_ENV = "PULUMI_COMPUTE_OWNER";
/** Label of a sandbox that carries the owner mark. */
export const SANDBOX_OWNER_LABEL = "pulumi-compute/owner";

export interface OwnerIdentity {
  /** Pulumi organization (the file backend's is `organization`). */
  organization: string;
  project: string;
  stack: string;
  /**
   * Where the stack's state lives (the backend URL, a local path made absolute): two
   * self-managed backends can hold stacks of the same organization, project and name.
   */
  backend: string;
  /** The resource's URN: unique within the stack (it includes the parent type chain). */
  urn: string;
  /**
   * Something random per stack, shared by everyone who runs that stack (for example the
   * stack's secrets salt). Empty when none is known.
   */
  salt: string;
}

const FIRST_GENERATION = "000000000000";
const MARK = /^([0-9a-f]{24})-([0-9a-f]{12})(?:\+([0-9a-f]{8}))?(?::(.*))?$/s;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The first-generation mark of one stack resource; the same inputs always give the same mark. */
export function ownerMark(identity: OwnerIdentity): string {
  const base = sha256(JSON.stringify([identity.organization, identity.project, identity.stack, identity.backend, identity.urn, identity.salt])).slice(0, 24);
  const name = identity.urn.slice(identity.urn.lastIndexOf("::") + 2);
  return `${base}-${FIRST_GENERATION}:${identity.project}/${identity.stack}/${name}`;
}

export interface ParsedOwnerMark {
  /** The stack resource: every generation of it shares this. */
  base: string;
  generation: string;
  /** Hash of the settings it was created from, when the mark carries one. */
  spec?: string;
  /** `base-generation`: two marks name the same resource generation when these are equal. */
  key: string;
  /** `project/stack/name`, for people; empty when the service cut it off. */
  label: string;
}

/** Reads a mark; undefined for a value that is not one (a user's own variable of that name). */
export function parseOwnerMark(value: string | null | undefined): ParsedOwnerMark | undefined {
  if (typeof value !== "string") return undefined;
  const match = MARK.exec(value);
  if (!match) return undefined;
  const [, base, generation, spec, label] = match as unknown as [string, string, string, string | undefined, string | undefined];
  return { base, generation, spec, key: `${base}-${generation}`, label: label ?? "" };
}

/** Whether a mark is a first generation (its resource was not in the state when checked). */
export function isFirstGeneration(mark: string): boolean {
  return parseOwnerMark(mark)?.generation === FIRST_GENERATION;
}

/**
 * The mark of the resource that replaces the one carrying `recorded`. `current` is the stack
 * resource's mark now (its URN may have changed since, by an alias): its base and label are
 * kept, and the generation follows from the recorded one.
 */
export function nextGeneration(recorded: string, current: string = recorded): string {
  const old = parseOwnerMark(recorded);
  const now = parseOwnerMark(current);
  if (!old || !now) return current;
  const generation = sha256(`${old.base}-${old.generation}`).slice(0, 12);
  return `${now.base}-${generation}:${now.label}`;
}

/** The mark written on a resource: the generation's mark plus the hash of its settings. */
export function withSpec(mark: string, settings: unknown): string {
  const parsed = parseOwnerMark(mark);
  if (!parsed) return mark;
  return `${parsed.key}+${sha256(canonicalJson(settings)).slice(0, 8)}:${parsed.label}`;
}

/** JSON with object keys sorted, so the same settings always hash the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * A name that carries a mark: `<name>~<project>/<stack>~<tag>`, the tag 18 hex (8 of the base,
 * 4 of the generation, 6 of the spec). Short enough for a name a person reads in a console, and
 * unique enough within one account and one name: two stack resources collide only if they share
 * both the name and 8 hex of a hash. The project and stack stay readable, so `compute ps` says
 * which stack owns a volume.
 */
const MARKED_NAME = /^(.*)~([^~/]*)\/([^~/]*)~([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{6})$/s;

/** The name a resource is created with on the service: the program's name, then the mark. */
export function nameWithMark(name: string, mark: string): string {
  const parsed = parseOwnerMark(mark);
  if (!parsed?.spec) return name;
  const [project = "", stack = ""] = parsed.label.split("/");
  return `${name}~${project}/${stack}~${parsed.base.slice(0, 8)}${parsed.generation.slice(0, 4)}${parsed.spec.slice(0, 6)}`;
}

/**
 * The program's part of a service name, and the mark it carries (in the compact form
 * `compactMark` gives). A lifetime tag after them (contract/lifetime.ts) is neither.
 */
export function splitMarkedName(serviceName: string): { name: string; mark?: string } {
  const { rest } = splitLifetimeTag(serviceName);
  const match = MARKED_NAME.exec(rest);
  if (!match) return { name: rest };
  const [, name, project, stack, base, generation, spec] = match as unknown as string[];
  return { name: name!, mark: `${base!.padEnd(24, "0")}-${generation!.padEnd(12, "0")}+${spec!.padEnd(8, "0")}:${project}/${stack}/${name}` };
}

/** A mark as a name can hold it (what `splitMarkedName` reads back): compared with marks read from names. */
export function compactMark(mark: string): string {
  const parsed = parseOwnerMark(mark);
  if (!parsed) return mark;
  const spec = parsed.spec ? `+${parsed.spec.slice(0, 6).padEnd(8, "0")}` : "";
  return `${parsed.base.slice(0, 8).padEnd(24, "0")}-${parsed.generation.slice(0, 4).padEnd(12, "0")}${spec}:${parsed.label}`;
}

/** The comment word of an SSH key line that carries the mark. */
export const SSH_KEY_OWNER_PREFIX = "pulumi-compute-owner=";

/** An authorized_keys line with the mark as its last comment word (a label's blanks become `_`). */
export function keyWithMark(line: string, mark: string): string {
  return `${keyWithoutMark(line)} ${SSH_KEY_OWNER_PREFIX}${mark.replace(/\s/g, "_")}`;
}

/** The line as it was before `keyWithMark`. */
export function keyWithoutMark(line: string): string {
  const at = line.indexOf(` ${SSH_KEY_OWNER_PREFIX}`);
  return (at < 0 ? line : line.slice(0, at)).trim();
}

/** The mark an authorized_keys line carries, if any. */
export function markOfKey(line: string): string | undefined {
  const word = line.trim().split(/\s+/).find((w) => w.startsWith(SSH_KEY_OWNER_PREFIX));
  return word?.slice(SSH_KEY_OWNER_PREFIX.length);
}

/** The owner mark of a resource as read from the service, if it has one: from its env, labels or name. */
export function ownerOf(resource: { env?: Record<string, string> | null; labels?: Record<string, string> | null; name?: string }): ParsedOwnerMark | undefined {
  const carried = resource.env?.[POD_OWNER_ENV] ?? resource.labels?.[SANDBOX_OWNER_LABEL];
  if (carried !== undefined) return parseOwnerMark(carried);
  return typeof resource.name === "string" ? parseOwnerMark(splitMarkedName(resource.name).mark) : undefined;
}
