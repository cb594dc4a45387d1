/**
 * Property bags between the engine's wire form and the runtime's plain values.
 *
 * The plugin accepts secrets (Handshake `acceptSecrets`), so the engine sends a secret value
 * wrapped in a sentinel object and, in preview, a value not known yet as one of seven typed
 * sentinel strings. The runtime (shared with the dynamic provider) works on plain values and
 * knows one unknown, the string sentinel. `decode` unwraps both and records where they were;
 * `encode` puts them back: the engine does not re-mark secrets in what an accepting provider
 * returns, so a secret the provider forgets to wrap would land in state in plaintext.
 */
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { plain } from "../runtime/partial";
import type { Props } from "../resources/definition";
import { UNKNOWN } from "../resources/unknowns";

/** `sdk/go/common/resource/sig/sig.go`: the key marking a special value, and a secret's value of it. */
export const SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/**
 * The unknown sentinels by element type (`sdk/go/common/resource/plugin/rpc.go`). The runtime
 * treats the string one as "unknown" whatever the field's type.
 */
export const UNKNOWN_SENTINELS = {
  string: UNKNOWN,
  boolean: "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7",
  number: "3eeb2bf0-c639-47a8-9e75-3b44932eb421",
  array: "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2",
  object: "dd056dcd-154b-4c76-9bd3-c8f88648b5ff",
  asset: "030794c1-ac77-496b-92df-f27374a8bd58",
  archive: "e48ece36-62e2-4504-bad9-02848725956a",
} as const;
const UNKNOWNS = new Set<string>(Object.values(UNKNOWN_SENTINELS));

export type Path = ReadonlyArray<string | number>;

/** Where a bag held secrets and unknowns (each unknown with its original sentinel). */
export interface Marks {
  secrets: Path[];
  unknowns: Array<{ path: Path; sentinel: string }>;
}

export const NO_MARKS: Marks = { secrets: [], unknowns: [] };

function isSecret(value: unknown): value is { value?: unknown } {
  return value !== null && typeof value === "object" && (value as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

function unwrap(value: unknown, path: Path, marks: Marks): unknown {
  if (isSecret(value)) {
    marks.secrets.push(path);
    return unwrap(value.value, path, marks);
  }
  if (typeof value === "string" && UNKNOWNS.has(value)) {
    marks.unknowns.push({ path, sentinel: value });
    return UNKNOWN;
  }
  if (Array.isArray(value)) return value.map((item, i) => unwrap(item, [...path, i], marks));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, unwrap(item, [...path, key], marks)]));
  }
  return value;
}

/** The plain values of a wire bag (absent: empty) and where its secrets and unknowns were. */
export function decode(struct: Struct | undefined): { props: Props; marks: Marks } {
  const marks: Marks = { secrets: [], unknowns: [] };
  const props = (struct ? unwrap(struct.toJavaScript(), [], marks) : {}) as Props;
  return { props, marks };
}

/** The top-level names holding a secret (what the runtime's `secretInputs` lists). */
export function secretNames(marks: Marks): string[] {
  return [...new Set(marks.secrets.map((path) => path[0]).filter((key): key is string => typeof key === "string"))].sort();
}

function parentOf(root: unknown, path: Path): Record<string | number, unknown> | undefined {
  let current = root;
  for (const part of path.slice(0, -1)) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string | number, unknown>)[part];
  }
  return current !== null && typeof current === "object" ? (current as Record<string | number, unknown>) : undefined;
}

/**
 * The wire bag of plain `props`: `undefined` dropped (a Struct cannot hold it), the original
 * unknown sentinels restored where the value is still unknown, and every value at a `secrets`
 * path wrapped (innermost first, so an outer secret wraps the inner one whole). A path the
 * value does not have is skipped.
 */
export function encode(props: Props, marks: Marks = NO_MARKS): Struct {
  const root = plain(props) as Record<string, unknown>;
  for (const { path, sentinel } of marks.unknowns) {
    const parent = parentOf(root, path);
    const key = path[path.length - 1];
    if (parent && key !== undefined && parent[key] === UNKNOWN) parent[key] = sentinel;
  }
  const seen = new Set<string>();
  const secrets = marks.secrets.filter((path) => path.length > 0 && !seen.has(JSON.stringify(path)) && seen.add(JSON.stringify(path)));
  for (const path of [...secrets].sort((a, b) => b.length - a.length)) {
    const parent = parentOf(root, path);
    const key = path[path.length - 1]!;
    if (!parent || parent[key] === undefined || isSecret(parent[key])) continue;
    parent[key] = { [SIG_KEY]: SECRET_SIG, value: parent[key] };
  }
  return Struct.fromJavaScript(root as Parameters<typeof Struct.fromJavaScript>[0]);
}

/** Marks with the secrets of several bags together (unknowns from the first). */
export function withSecrets(marks: Marks, ...more: Array<Path[]>): Marks {
  return { secrets: [...marks.secrets, ...more.flat()], unknowns: marks.unknowns };
}
