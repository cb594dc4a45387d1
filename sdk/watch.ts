/**
 * Shared status polling. A stack creates many pods and sandboxes in one provider process; if
 * each waited by polling its own GET, a fleet of 40 would spend 40 calls per tick. A watcher
 * answers every waiter with one list request per tick (a single waiter uses one GET), and
 * backs off while nothing changes, so API calls per resource stay flat however long
 * provisioning takes.
 *
 * It also learns how long a kind of wait takes (`expect`: waits of one key are alike, such as
 * "a pod from PROVISIONING to RUNNING"), and polls for a newcomer no sooner than the quickest
 * recent wait of its key took. Without it, a fleet created a few at a time (the engine's default
 * parallelism allows 8 steps at once) keeps polling at the newcomers' pace for every wave: each
 * wave's own poll is the one that matters, the others find nothing done (docs/benchmarks.md,
 * scenario 2). The quickest, not a typical one: a newcomer that could be done is never left
 * waiting for it, and one that is not yet done costs one more poll.
 */
import { AsyncResource } from "node:async_hooks";
import { NotFoundError } from "./errors";
import { sleep } from "./retry";

export interface WatchSource<T extends { id: string }> {
  getOne(id: string): Promise<T>;
  /**
   * Every item; optionally with the ids of items the list could not read (`setAside`). An
   * awaited item set aside is read by id, so its waiter learns why it cannot be read rather
   * than, after a few ticks, that it "no longer exists".
   */
  listAll(): Promise<T[] | { items: T[]; setAside: Array<{ id?: string }> }>;
}

interface Waiter<T> {
  id: string;
  done: (item: T) => boolean;
  resolve: (item: T) => void;
  reject: (error: unknown) => void;
  onUpdate?: (item: T) => void;
  /** When it started waiting (monotonic ms). */
  startedAt: number;
  /** The kind of wait it is, whose durations the watcher learns (`waitFor`'s `expect`). */
  expect?: string;
  /** Ticks in which the item was missing: a fresh create may lag the list briefly. */
  misses: number;
  missingTolerance: number;
}

export interface WatcherOptions {
  initialIntervalMs?: number;
  maxIntervalMs?: number;
  /** Consecutive ticks an awaited id may be missing before it counts as gone. Default 3. */
  missingTolerance?: number;
  /**
   * The spacing a tight rate limit asks of background work (RateLimiter.pollSpacingMs). Polls
   * then go no faster than that, up to `maxIntervalMs`, leaving the quota to creates and
   * updates without leaving a finished pod unnoticed for long.
   */
  quotaSpacingMs?: () => number;
}

export class Watcher<T extends { id: string }> {
  private readonly waiters = new Set<Waiter<T>>();
  private running = false;
  private intervalMs: number;
  private readonly initialIntervalMs: number;
  private readonly maxIntervalMs: number;
  private readonly missingTolerance: number;
  private readonly quotaSpacingMs: () => number;
  private readonly lastSeen = new Map<string, string>();
  /** How long the last waits of each `expect` key took (ms), the latest last. */
  private readonly durations = new Map<string, number[]>();
  /** Count of poll requests sent, for tests and benchmarks. */
  polls = 0;

  constructor(
    private readonly source: WatchSource<T>,
    options: WatcherOptions = {},
  ) {
    this.initialIntervalMs = options.initialIntervalMs ?? 500;
    this.maxIntervalMs = options.maxIntervalMs ?? 5000;
    this.missingTolerance = options.missingTolerance ?? 3;
    this.quotaSpacingMs = options.quotaSpacingMs ?? (() => 0);
    this.intervalMs = this.initialIntervalMs;
  }

  /**
   * Resolves with the item once `done(item)` holds; `onUpdate` sees every observed version.
   * Rejects with NotFoundError when the item disappears (after `missingTolerance` ticks; pass 0
   * when waiting for a deletion), or with the abort reason. `expect` names the kind of wait
   * (the state it starts from and the one it waits for): waits of one key teach the watcher
   * when to poll first for the next.
   */
  waitFor(
    id: string,
    done: (item: T) => boolean,
    options: { onUpdate?: (item: T) => void; signal?: AbortSignal; missingTolerance?: number; expect?: string } = {},
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter<T> = {
        id,
        done,
        // Called from the shared poll, which runs in the async context of whichever waiter
        // started it; bound here, each waiter's updates run in its own caller's context (the
        // native plugin attributes progress lines to the resource whose request that is).
        onUpdate: options.onUpdate && AsyncResource.bind(options.onUpdate),
        startedAt: performance.now(),
        expect: options.expect,
        misses: 0,
        missingTolerance: options.missingTolerance ?? this.missingTolerance,
        resolve: (item) => {
          cleanup();
          this.learn(waiter);
          resolve(item);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      };
      const onAbort = () => waiter.reject(options.signal!.reason);
      const cleanup = () => {
        this.waiters.delete(waiter);
        this.lastSeen.delete(id);
        options.signal?.removeEventListener("abort", onAbort);
      };
      if (options.signal?.aborted) return reject(options.signal.reason);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.add(waiter);
      // A newcomer wants an answer soon, not after the backed-off interval of older waiters;
      // unless waits of its kind say when it can be done: then that is when it is first read.
      if (!this.durations.has(waiter.expect ?? "")) this.intervalMs = this.initialIntervalMs;
      if (!this.running) void this.loop();
    });
  }

  private async loop(): Promise<void> {
    this.running = true;
    try {
      while (this.waiters.size > 0) {
        const paced = Math.max(this.intervalMs, Math.min(this.maxIntervalMs, this.quotaSpacingMs()));
        await sleep(Math.max(paced, Math.min(this.maxIntervalMs, this.untilFirstDueMs())));
        if (this.waiters.size === 0) break;
        const changed = await this.tick();
        this.intervalMs = changed ? this.initialIntervalMs : Math.min(this.maxIntervalMs, Math.round(this.intervalMs * 1.5));
      }
    } finally {
      this.running = false;
    }
  }

  /** How many recent waits of a key the watcher remembers. */
  private static readonly REMEMBERED = 8;

  /** Records how long a finished wait took, under its key. */
  private learn(waiter: Waiter<T>): void {
    if (waiter.expect === undefined) return;
    const recent = this.durations.get(waiter.expect) ?? [];
    recent.push(performance.now() - waiter.startedAt);
    this.durations.set(waiter.expect, recent.slice(-Watcher.REMEMBERED));
  }

  /**
   * How long until the first waiter could be done, by the quickest recent wait of its key: 0
   * when one could be done now, or has no key or no wait of its key to go by.
   */
  private untilFirstDueMs(): number {
    const now = performance.now();
    let first = Infinity;
    for (const waiter of this.waiters) {
      const recent = waiter.expect === undefined ? undefined : this.durations.get(waiter.expect);
      if (!recent) return 0;
      first = Math.min(first, waiter.startedAt + Math.min(...recent) - now);
    }
    return Math.max(0, first);
  }

  /** One poll for every waiter; returns whether anything it watches changed. */
  private async tick(): Promise<boolean> {
    const waiting = [...this.waiters];
    let items: Map<string, T>;
    try {
      this.polls += 1;
      if (waiting.length === 1) {
        const one = await this.source.getOne(waiting[0].id).catch((error) => {
          if (error instanceof NotFoundError) return undefined;
          throw error;
        });
        items = new Map(one ? [[one.id, one]] : []);
      } else {
        const listed = await this.source.listAll();
        const all = Array.isArray(listed) ? listed : listed.items;
        items = new Map(all.map((item) => [item.id, item]));
        const unreadable = new Set(Array.isArray(listed) ? [] : listed.setAside.map((entry) => entry.id));
        for (const waiter of waiting) {
          if (!unreadable.has(waiter.id)) continue;
          // Its reason (or the item, if a single read does parse) comes from the read by id.
          const one = await this.source.getOne(waiter.id).catch((error) => {
            if (!(error instanceof NotFoundError)) waiter.reject(error);
            return undefined;
          });
          if (one) items.set(one.id, one);
        }
      }
    } catch (error) {
      // The request path already retried; a failure here is final for everyone waiting.
      for (const waiter of waiting) waiter.reject(error);
      return true;
    }
    let changed = false;
    for (const waiter of waiting) {
      if (!this.waiters.has(waiter)) continue; // settled during this tick
      const item = items.get(waiter.id);
      if (!item) {
        waiter.misses += 1;
        if (waiter.misses > waiter.missingTolerance) {
          waiter.reject(new NotFoundError({ status: 404, title: "Not Found", detail: `${waiter.id} no longer exists`, request: { method: "GET", path: waiter.id } }));
        }
        continue;
      }
      waiter.misses = 0;
      const fingerprint = JSON.stringify(item);
      if (this.lastSeen.get(waiter.id) !== fingerprint) {
        changed = true;
        this.lastSeen.set(waiter.id, fingerprint);
      }
      waiter.onUpdate?.(item);
      if (waiter.done(item)) waiter.resolve(item);
    }
    return changed;
  }
}
