/** RFC 3339 date-times as the API writes and reads them (`2026-05-01T08:00:00Z`, an offset, a fraction). */

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Microseconds since the epoch of an RFC 3339 date-time, or undefined when it is not one. */
export function parseMicros(text: string): number | undefined {
  const match = RFC3339.exec(text.trim());
  if (!match) return undefined;
  const [, date, clock, fraction = "", zone] = match;
  const wholeMs = Date.parse(`${date}T${clock}${zone.toUpperCase()}`);
  if (Number.isNaN(wholeMs)) return undefined;
  const micros = Number(fraction.slice(0, 6).padEnd(6, "0"));
  return wholeMs * 1000 + micros;
}

/** Milliseconds since the epoch of an RFC 3339 date-time, or undefined when it is not one. */
export function parseMillis(text: string): number | undefined {
  const us = parseMicros(text);
  return us === undefined ? undefined : Math.floor(us / 1000);
}
