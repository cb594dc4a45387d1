/**
 * What the environment resources (volumes, templates, credentials, keys, endpoints) share
 * between their inputs and the wire: input names that differ from the wire's, violations
 * worded with the program's names, the owner mark carried in a name, and "present" as the
 * only state of a resource the service has no status for.
 */
import type { z } from "zod";
import { POD_OWNER_ENV, SANDBOX_OWNER_LABEL, compactMark, nameWithMark, parseWire, splitMarkedName } from "../../sdk";
import type { Props, States } from "./definition";

/** Program input name → wire member name, for the inputs that differ. */
export type Renames = Readonly<Record<string, string>>;

/** The wire body from the program's values: renamed members, unset ones left out. */
export function toWire(values: Props, fields: readonly string[], renames: Renames): Props {
  const body: Props = {};
  for (const field of fields) if (values[field] !== undefined) body[renames[field] ?? field] = values[field];
  return body;
}

/** A violation's wire path in the program's words (`dataCenter: …` → `dataCenterId: …`). */
export function inProgramWords(violation: string, renames: Renames): string {
  const wireToInput = Object.fromEntries(Object.entries(renames).map(([input, wire]) => [wire, input]));
  return violation.replace(/^([A-Za-z]+)(?=[.[:,])/, (head) => wireToInput[head] ?? head);
}

/** Every violation of a wire body against its schema, in the program's words. */
export function schemaViolations(schema: z.ZodType, body: Props, renames: Renames): string[] {
  const parsed = parseWire(schema, body);
  return parsed.ok ? [] : parsed.violations.map((v) => inProgramWords(v, renames));
}

/**
 * The owner mark of a kind that has only a name (network volumes, templates, registry
 * credentials): the name the service holds is the program's name followed by a compact mark
 * (sdk/ownership.ts `nameWithMark`).
 */
export const markInName = {
  read: (live: { name: string }) => splitMarkedName(live.name).mark,
  write: (request: Props, mark: string) => {
    request.name = nameWithMark(String(request.name), mark);
  },
  compact: compactMark,
};

/**
 * The owner mark in an env variable (a pod, an endpoint): the variable the service keeps with
 * the container, which no program sets (reservedEnvViolations refuses it).
 */
export const markInEnv = {
  read: (live: { env?: Record<string, string> | null }) => live.env?.[POD_OWNER_ENV],
  write: (request: Props, mark: string) => {
    request.env = { ...(request.env as Record<string, string> | undefined), [POD_OWNER_ENV]: mark };
  },
};

/** The owner mark in a label (a sandbox: labels, and no env the service answers). */
export const markInLabels = {
  read: (live: { labels?: Record<string, string> | null }) => live.labels?.[SANDBOX_OWNER_LABEL],
  write: (request: Props, mark: string) => {
    request.labels = { ...(request.labels as Record<string, string> | undefined), [SANDBOX_OWNER_LABEL]: mark };
  },
};

/** Whether a create request's name carries a mark, so no other create asks for it (its recovery may search by it). */
export function uniquelyNamed(request: Props): boolean {
  return typeof request.name === "string" && splitMarkedName(request.name).mark !== undefined;
}

/** The program's part of a name the service holds. */
export function programName(serviceName: string): string {
  return splitMarkedName(serviceName).name;
}

/** The service name for a rename: the new program name, the mark kept. */
export function renamedKeepingMark(serviceName: string, name: string): string {
  return name + serviceName.slice(programName(serviceName).length);
}

/** A resource the service gives no status: it exists, or it does not. */
export function presentOnly<Live>(output: string): States<Live> {
  return { output, of: () => "AVAILABLE", ended: new Set() };
}
