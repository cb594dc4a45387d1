/**
 * The one way the suites wait for something that happens on its own (a server reaching a state,
 * a line arriving, a request being logged): `eventually` asks again every `intervalMs` until the
 * answer is what was waited for, and fails with a message naming what it waited for, how long,
 * and the last answer, once `timeoutMs` has passed. Every wait is bounded: there is no "forever".
 *
 *   await eventually("the sandbox RUNNING", () => sdk.sandboxes.get(id), { until: (s) => s.state === "RUNNING" });
 *   await eventually("two lines on stdout", () => count() >= 2, { timeoutMs: 5000 });
 *
 * An error thrown by `read` fails the wait at once with that error (a probe that cannot read is
 * a failure, not a "not yet").
 */
export interface EventuallyOptions<T> {
  /** When the value read is the one waited for; by default, when it is truthy. */
  until?: (value: T) => boolean;
  /** How long to keep asking, from the call. Default 10 000 ms. */
  timeoutMs?: number;
  /** The pause between two reads. Default 50 ms. */
  intervalMs?: number;
}

export async function eventually<T>(what: string, read: () => T | Promise<T>, options: EventuallyOptions<T> = {}): Promise<T> {
  const { until = (value: T) => Boolean(value), timeoutMs = 10_000, intervalMs = 50 } = options;
  const started = Date.now();
  const deadline = started + timeoutMs;
  let reads = 0;
  for (;;) {
    const value = await read();
    reads++;
    if (until(value)) return value;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new Error(`timed out after ${Date.now() - started} ms (limit ${timeoutMs} ms, ${reads} reads every ${intervalMs} ms) waiting for ${what}; last read: ${describe(value)}`);
    }
    await new Promise<void>((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
  }
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 500 ? `${value.slice(0, 500)}…` : value);
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(value);
    return text.length > 500 ? `${text.slice(0, 500)}…` : text;
  } catch {
    return String(value);
  }
}
