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

// Read as the contract reads them: the API's date-time format is stated once.
export { parseMicros, parseMillis } from "../contract/time";

/** The HTTP `Date` header (RFC 9110 IMF-fixdate) of an emulator instant. */
export function httpDate(epochMs: number): string {
  return new Date(epochMs).toUTCString();
}
