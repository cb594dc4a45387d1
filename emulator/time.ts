/** Timestamp formats of the wire: RFC 3339 in UTC, with microseconds for log event ids. */

export function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

export function isoOrNull(epochMs: number | null | undefined): string | null {
  return epochMs === null || epochMs === undefined ? null : iso(epochMs);
}

/**
 * `2026-11-23T01:02:03.123456Z`. Log events are identified by their timestamp, so the id must
 * be fine enough that two lines of one stream never share it (the contract's `Last-Event-ID`).
 */
export function isoMicros(epochUs: number): string {
  const ms = Math.floor(epochUs / 1000);
  const micros = String(epochUs - ms * 1000).padStart(3, "0");
  return new Date(ms).toISOString().replace(/Z$/, `${micros}Z`);
}

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

export function parseMillis(text: string): number | undefined {
  const us = parseMicros(text);
  return us === undefined ? undefined : Math.floor(us / 1000);
}

/** The HTTP `Date` header (RFC 9110 IMF-fixdate) of an emulator instant. */
export function httpDate(epochMs: number): string {
  return new Date(epochMs).toUTCString();
}
