/**
 * Turns zod issues into the contract's violation strings: `<field path>: <rule>`.
 *
 * The same strings are produced by the SDK's client-side validation and by the emulator's 422
 * responses (they share these schemas), so a user sees one wording whichever side caught it.
 */
import type { z } from "zod";

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;

/** The per-parse error map: one short rule per issue, naming the limit that was broken. */
export function describeRule(issue: RawIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "is required" : `must be ${article(issue.expected)}`;
    case "too_small":
      if (issue.origin === "array") return `must have at least ${issue.minimum} item(s)`;
      if (issue.origin === "string") return `must be at least ${issue.minimum} character(s) long`;
      return `must be >= ${issue.minimum}`;
    case "too_big":
      if (issue.origin === "array") return `must have at most ${issue.maximum} item(s)`;
      if (issue.origin === "string") return `must be at most ${issue.maximum} character(s) long`;
      return `must be <= ${issue.maximum}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "unrecognized_keys":
      return "unknown property";
    case "invalid_key":
      return `key ${(issue.issues as Array<{ message?: string }>)[0]?.message ?? "is invalid"}`;
    case "invalid_format":
      return issue.message ?? `must match ${issue.format}`;
    default:
      return issue.message ?? "is invalid";
  }
}

function article(expected: string): string {
  const name = expected === "int" ? "integer" : expected;
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || "(body)";
}

/** One string per violation; an unknown-properties issue becomes one string per property. */
export function formatIssues(issues: ReadonlyArray<Issue>): string[] {
  const out: string[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push(`${formatPath([...issue.path, key])}: unknown property`);
    } else {
      out.push(`${formatPath(issue.path)}: ${issue.message}`);
    }
  }
  return out;
}

/**
 * The JSON value `text` holds, or undefined when it is not JSON (JSON has no undefined). The
 * parser's message is dropped on purpose: it quotes the text, which may hold secrets (pod env).
 */
export function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Parses with the contract's wording; returns the value or every violation at once. */
export function parseWire<T>(
  schema: z.ZodType<T>,
  input: unknown,
): { ok: true; value: T } | { ok: false; violations: string[] } {
  // Valid input is the hot path (every response, every log line). zod 4 parses about ten
  // times slower when given per-parse options, so the error map is only passed on the second
  // parse that words the violations of input already known to be invalid (bench scenario 5).
  const fast = schema.safeParse(input);
  if (fast.success) return { ok: true, value: fast.data };
  const worded = schema.safeParse(input, { error: (issue) => describeRule(issue) });
  return { ok: false, violations: formatIssues(worded.success ? fast.error.issues : worded.error.issues) };
}
