/**
 * Keeps secret input values out of every message the provider writes: check failures, errors
 * and progress lines. The dynamic-provider host hands the provider plain values (it does not
 * accept secrets), so the resource class tells it which inputs the program gave as secrets
 * (`secretInputs`, see provider/stack-identity.ts); every string inside those is replaced by
 * `[secret]` wherever it would appear. Values are remembered for the life of the process: a
 * message about one resource may quote another's.
 */
import type { Props } from "../resources/definition";
import { processSlot } from "./process-memory";

export const REDACTED = "[secret]";

function known(): Set<string> {
  // A message through any copy of the runtime may quote a value learned through another.
  return processSlot("secret-values", () => new Set<string>());
}

function stringsIn(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number" || typeof value === "boolean") out.push(String(value));
  else if (Array.isArray(value)) value.forEach((item) => stringsIn(item, out));
  else if (value && typeof value === "object") Object.values(value).forEach((item) => stringsIn(item, out));
}

/** Remembers the secret values among `props` (inputs or outputs that carry `secretInputs`). */
export function learnSecrets(props: Props | undefined): void {
  const names = props?.secretInputs;
  if (!props || !Array.isArray(names)) return;
  const values: string[] = [];
  for (const name of names) if (typeof name === "string") stringsIn(props[name], values);
  // Very short values (a "1", a "true") would blank out ordinary words of every message.
  for (const value of values) if (value.length >= 4) known().add(value);
}

export function redact(text: string): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  for (const value of [...known()].sort((a, b) => b.length - a.length)) out = out.split(value).join(REDACTED);
  return out;
}

/** The same error with its message, stack and partial-failure reasons redacted. */
export function redactError(error: unknown): unknown {
  if (!(error instanceof Error)) return typeof error === "string" ? redact(error) : error;
  error.message = redact(error.message);
  if (error.stack) error.stack = redact(error.stack);
  const reasons = (error as { reasons?: unknown }).reasons;
  if (Array.isArray(reasons)) (error as unknown as { reasons: unknown[] }).reasons = reasons.map((r) => (typeof r === "string" ? redact(r) : r));
  return error;
}

/**
 * A line of a container's log as the provider may quote it: the known secrets redacted, and the
 * value of anything that says it is one (`PASSWORD=…`, `api_key: …`, `token=…`), since a log
 * prints what the program never gave as a secret (a generated Jupyter password).
 */
export function redactLogLine(line: string): string {
  return redact(line).replace(/((?:password|passwd|secret|token|api[_-]?key)[\w-]*"?\s*[=:]\s*"?)[^\s"',;]+/gi, `$1${REDACTED}`);
}
