/**
 * Value parsers for flags and arguments. Each throws commander's `InvalidArgumentError`, so a bad
 * value is reported by commander as `error: option '--limit <n>' argument 'x' is invalid. ...`
 * and exits with the usage code before any request is sent.
 */
import { InvalidArgumentError } from "commander";
import { LABEL_KEY, LABEL_KEY_RULE } from "../contract";

/** An integer in [min, max] written in decimal digits (no `1e3`, no `0x10`, no `12abc`). */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const trimmed = value.trim();
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `between ${min} and ${max}`;
    if (!/^-?\d+$/.test(trimmed)) throw new InvalidArgumentError(`Expected an integer ${range}.`);
    const n = Number(trimmed);
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(`Expected an integer ${range}.`);
    return n;
  };
}

export function nonEmpty(value: string): string {
  if (value.trim() === "") throw new InvalidArgumentError("Must not be empty.");
  return value;
}

/** A repeatable `key=value` flag, collected into a map; keys follow the sandbox label rule. */
export function label(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const eq = value.indexOf("=");
  if (eq <= 0) throw new InvalidArgumentError("Expected key=value.");
  const key = value.slice(0, eq);
  const text = value.slice(eq + 1);
  if (!LABEL_KEY.test(key)) throw new InvalidArgumentError(`Label key "${key}" ${LABEL_KEY_RULE}.`);
  const labels = { ...(previous ?? {}) };
  if (key in labels && labels[key] !== text) throw new InvalidArgumentError(`Label key "${key}" is given twice with different values.`);
  labels[key] = text;
  return labels;
}

/** A repeatable flag collected into a list. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), nonEmpty(value)];
}

/**
 * An RFC 3339 date-time (`2026-11-23T10:00:00Z`, `2026-11-23T11:00:00.5+01:00`): a date, `T`
 * (or `t` / space, as RFC 3339 section 5.6 allows), a time with seconds, and a zone. Passed on
 * unchanged: the service compares it with its own stamps.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
export function rfc3339(value: string): string {
  const match = RFC3339.exec(value.trim());
  const valid =
    match !== null &&
    Number(match[2]) >= 1 && Number(match[2]) <= 12 &&
    Number(match[3]) >= 1 && Number(match[3]) <= 31 &&
    Number(match[4]) <= 23 && Number(match[5]) <= 59 && Number(match[6]) <= 60 &&
    !Number.isNaN(Date.parse(value.trim()));
  if (!valid) throw new InvalidArgumentError("Expected an RFC 3339 date-time such as 2026-11-23T10:00:00Z.");
  return value.trim();
}
