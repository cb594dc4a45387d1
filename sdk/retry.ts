/**
 * Retry policy, in one place. The request path asks `retryDelay` after each failed attempt.
 *
 * - 429: wait what `Retry-After` says (integer seconds), bounded by `maxRetryAfterMs` (a hint
 *   beyond the bound is cut to it: a provider must not sleep for an hour on one header), for as
 *   long as `rateLimitDeadlineMs` allows from the first 429: a storm of dozens of 429s is the
 *   service asking to slow down, not a reason to fail a run that has time left.
 * - 5xx and connection failures: exponential backoff with "equal jitter" (a random delay between
 *   half the base and the base, so retries of many clients spread out but never collapse to 0), capped.
 * - every other 4xx: never retried; the request itself is wrong.
 */
import { ConnectionError, RateLimitError, ServerError } from "./errors";

export interface RetrySettings {
  maxRetries: number;
  maxRateLimitRetries: number;
  /** How long one request keeps retrying 429 answers, from its first one. */
  rateLimitDeadlineMs: number;
  maxRetryAfterMs: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
}

export interface AttemptCounts {
  /** Failed attempts so far that were 5xx or connection failures. */
  transient: number;
  /** Failed attempts so far that were 429. */
  rateLimited: number;
  /** When the first 429 of this request arrived (`performance.now()`, a monotonic clock), if one did. */
  firstRateLimitedAt?: number;
}

/** Milliseconds to wait before the next attempt, or undefined when the error is final. */
export function retryDelay(error: unknown, counts: AttemptCounts, settings: RetrySettings, random = Math.random): number | undefined {
  if (error instanceof RateLimitError) {
    if (counts.rateLimited >= settings.maxRateLimitRetries) return undefined;
    const hintMs = error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : undefined;
    const delay = hintMs !== undefined ? Math.min(hintMs, settings.maxRetryAfterMs) : backoff(counts.rateLimited, settings, random);
    const elapsed = performance.now() - (counts.firstRateLimitedAt ?? performance.now());
    return elapsed + delay > settings.rateLimitDeadlineMs ? undefined : delay;
  }
  if (error instanceof ServerError || error instanceof ConnectionError) {
    if (counts.transient >= settings.maxRetries) return undefined;
    return backoff(counts.transient, settings, random);
  }
  return undefined;
}

/**
 * The last 429 of a request that retried until its deadline: the same answer, its detail saying
 * how long it was retried and which setting bounds that, so a user knows what to raise.
 */
export function rateLimitedToTheEnd(error: RateLimitError, counts: AttemptCounts, settings: RetrySettings): RateLimitError {
  const seconds = Math.round((performance.now() - (counts.firstRateLimitedAt ?? performance.now())) / 1000);
  const bound =
    counts.rateLimited >= settings.maxRateLimitRetries ? `maxRateLimitRetries ${settings.maxRateLimitRetries}` : `rateLimitDeadlineMs ${settings.rateLimitDeadlineMs}`;
  return new RateLimitError({
    status: error.status,
    title: error.title,
    detail: `${error.detail} (still rate limited after ${counts.rateLimited} retries over ${seconds} s, honouring Retry-After; the deadline is ${bound})`,
    errors: error.errors,
    code: error.code,
    request: error.request,
    retryAfterSeconds: error.retryAfterSeconds,
    requestId: error.requestId,
  });
}

/** Equal-jitter exponential backoff: uniform in [base/2, base], base doubling per attempt. */
export function backoff(attempt: number, settings: Pick<RetrySettings, "initialBackoffMs" | "maxBackoffMs">, random = Math.random): number {
  const base = Math.min(settings.maxBackoffMs, settings.initialBackoffMs * 2 ** attempt);
  return Math.round(base / 2 + (random() * base) / 2);
}

/** Integer seconds of a `Retry-After` header (the contract sends integers; HTTP dates are accepted too). */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === "") return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - nowMs) / 1000));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
