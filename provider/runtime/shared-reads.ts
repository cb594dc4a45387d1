/**
 * Reads that many resources of one run ask for at about the same time (the engine checks and
 * creates a stack's resources in parallel), made once and shared.
 *
 * - `whileInFlight`: callers that ask while a read is under way share it; once it has ended, the
 *   next caller reads again. For reads whose answer must be current, such as the owner-mark
 *   lookup before a create: any read this process starts began after every earlier run ended,
 *   so a shared one still shows all that those runs left behind.
 * - `forSeconds`: the answer is kept for a while. For data that changes rarely and is only
 *   shown, such as the catalog's prices behind the estimate at preview.
 */
type Cache = Map<string, { value: Promise<unknown>; until: number }>;
const caches = new WeakMap<object, Cache>();

function cacheOf(owner: object): Cache {
  let cache = caches.get(owner);
  if (!cache) caches.set(owner, (cache = new Map()));
  return cache;
}

function shared<T>(owner: object, key: string, keepMs: number, read: () => Promise<T>): Promise<T> {
  const cache = cacheOf(owner);
  const held = cache.get(key);
  if (held && (held.until === Infinity || held.until > Date.now())) return held.value as Promise<T>;
  const value = read();
  const entry = { value: value as Promise<unknown>, until: Infinity };
  cache.set(key, entry);
  value.then(
    () => {
      if (keepMs > 0) entry.until = Date.now() + keepMs;
      else if (cache.get(key) === entry) cache.delete(key);
    },
    // A failed read is never shared afterwards.
    () => {
      if (cache.get(key) === entry) cache.delete(key);
    },
  );
  return value;
}

/** `read()` shared by every caller that asks (for `owner`, under `key`) while it is under way. */
export function whileInFlight<T>(owner: object, key: string, read: () => Promise<T>): Promise<T> {
  return shared(owner, key, 0, read);
}

/** `read()` shared by every caller that asks while it runs and for `seconds` after it answered. */
export function forSeconds<T>(owner: object, key: string, seconds: number, read: () => Promise<T>): Promise<T> {
  return shared(owner, key, seconds * 1000, read);
}
