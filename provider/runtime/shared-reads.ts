/**
 * Reads that many resources of one run ask for at about the same time (the engine checks,
 * creates and refreshes a stack's resources in parallel), made once and shared.
 *
 * - `forRun`: the answer is kept for the rest of the run (the provider process lives for one
 *   engine run). For what only earlier runs can have made, such as what an interrupted run left
 *   behind: it all predates this process, so the list taken by the run's first create shows it
 *   to every later one, and a fleet of 1000 creates makes one list per family, not 1000.
 * - `forSeconds`: the answer is kept for a while. For data that changes rarely and is only
 *   shown, such as the catalog's prices behind the estimate at preview.
 */
type Cache = Map<string, { value: Promise<unknown>; until: number }>;
let caches = new WeakMap<object, Cache>();

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
      if (keepMs === Infinity) return;
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

/** `read()` shared by every caller of the run (a failed read is not kept: the next caller reads again). */
export function forRun<T>(owner: object, key: string, read: () => Promise<T>): Promise<T> {
  return shared(owner, key, Infinity, read);
}

/**
 * A new run in this process: every kept answer is forgotten. An engine run is a process of its
 * own, so only tests that play several runs in one process call this.
 */
export function startNewRun(): void {
  caches = new WeakMap();
}

/** `read()` shared by every caller that asks while it runs and for `seconds` after it answered. */
export function forSeconds<T>(owner: object, key: string, seconds: number, read: () => Promise<T>): Promise<T> {
  return shared(owner, key, seconds * 1000, read);
}

/** What `readById` needs of a family: a read by id, and the whole list (with what it could not read). */
export interface ReadableFamily<T extends { id: string }> {
  get(id: string): Promise<T>;
  page(): Promise<{ items: T[]; setAside: Array<{ id?: string }> }>;
}

interface PendingRead<T> {
  id: string;
  resolve(item: T): void;
  reject(error: unknown): void;
}

/**
 * Reads by id answered together (`refresh` reads every resource of a stack, but the engine asks
 * for them one after another over seconds, not all at once). At most one read of the family is
 * under way, and reads start at most every `spacingMs`; the reads asked meanwhile wait and are
 * then answered by one list, so every answer comes from a read that began after it was asked,
 * as current as a GET of its own, at most `spacingMs` plus one list later. A lone read is a GET.
 * An id missing from the list (deleted, or a state the list leaves out, such as a TERMINATED
 * sandbox) or set aside is read by id, so a resource is declared gone only on its own 404.
 * Goal: a refresh of 1000 resources in at most 0.1 calls per resource (docs/benchmarks.md).
 */
class BatchedReads<T extends { id: string }> {
  private queue: Array<PendingRead<T>> = [];
  private running = false;
  private lastStartedAt = -Infinity;

  constructor(
    private readonly family: ReadableFamily<T>,
    private readonly spacingMs = 250,
  ) {}

  read(id: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ id, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        // A monotonic clock: a wall clock stepped back would stall every read of the family.
        const wait = this.lastStartedAt + this.spacingMs - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        this.lastStartedAt = performance.now();
        const batch = this.queue.splice(0);
        const ids = new Set(batch.map((pending) => pending.id));
        if (ids.size === 1) {
          await this.byId(batch);
          continue;
        }
        let page: Awaited<ReturnType<ReadableFamily<T>["page"]>>;
        try {
          page = await this.family.page();
        } catch (error) {
          for (const pending of batch) pending.reject(error);
          continue;
        }
        const setAside = new Set(page.setAside.map((item) => item.id));
        const listed = new Map(page.items.map((item) => [item.id, item]));
        const unlisted: Array<PendingRead<T>> = [];
        for (const pending of batch) {
          const item = listed.get(pending.id);
          if (item && !setAside.has(pending.id)) pending.resolve(item);
          else unlisted.push(pending);
        }
        // Not awaited: confirming the few missing ones must not hold up the next batch.
        void Promise.all([...new Set(unlisted.map((pending) => pending.id))].map((id) => this.byId(unlisted.filter((pending) => pending.id === id))));
      }
    } finally {
      this.running = false;
    }
  }

  private async byId(readers: Array<PendingRead<T>>): Promise<void> {
    try {
      const item = await this.family.get(readers[0]!.id);
      for (const pending of readers) pending.resolve(item);
    } catch (error) {
      for (const pending of readers) pending.reject(error);
    }
  }
}

const batchers = new WeakMap<object, Map<string, BatchedReads<any>>>();

/** `family`'s resource `id`, read together with the other reads of the family under way (`owner`: the client, `key`: the family). */
export function readById<T extends { id: string }>(owner: object, key: string, family: ReadableFamily<T>, id: string): Promise<T> {
  let byKey = batchers.get(owner);
  if (!byKey) batchers.set(owner, (byKey = new Map()));
  let batcher: BatchedReads<T> | undefined = byKey.get(key);
  if (!batcher) byKey.set(key, (batcher = new BatchedReads<T>(family)));
  return batcher.read(id);
}
