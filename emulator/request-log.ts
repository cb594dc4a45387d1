/** The control plane's request log: what API calls arrived and how they were answered. */

export interface LoggedRequest {
  method: string;
  path: string;
  /** Query string without the `?` ("" when none). */
  query: string;
  /** Null when the connection was dropped by a fault. */
  status: number | null;
  /** The account the request acted for; null when it was not authenticated. */
  account: string | null;
  /** Emulator-clock time of arrival (RFC 3339). */
  time: string;
}

/** Keeps the most recent entries only, so a long benchmark cannot grow memory without bound. */
const CAPACITY = 20000;

export class RequestLog {
  private entries: LoggedRequest[] = [];

  record(entry: LoggedRequest): void {
    this.entries.push(entry);
    if (this.entries.length > CAPACITY * 1.25) this.entries = this.entries.slice(-CAPACITY);
  }

  list(): LoggedRequest[] {
    return this.entries.slice(-CAPACITY);
  }

  clear(): void {
    this.entries = [];
  }
}
