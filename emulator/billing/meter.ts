/**
 * The meter: what every billed thing of the emulator used, and at what rate, over time. The
 * families write to it as things happen (a pod holds its GPUs or lets them go, a worker starts
 * or stops, a volume is made, resized or deleted), because most of them forget their past: a
 * terminated pod is purged, a deleted endpoint or volume is gone at once. The billing routes
 * (routes.ts) read only the meter, so a destroyed resource keeps its history.
 *
 * A use is one thing (a pod, a worker, a volume) billed at one rate from `from` until `to`
 * (open while it lasts). Its `key` names that thing across uses, so opening what is open, or
 * closing what is closed, changes nothing: the families may say it again (a restore, a retried
 * transition) without billing twice.
 */
import type { BillingRoute } from "../../contract/billing";
import type { ResourceModule } from "../module";

/** The routes whose records a use appears in (the aggregate route sums them all). */
export type MeteredRoute = Exclude<BillingRoute, "all" | "endpoints">;

export interface Use {
  key: string;
  accountId: string;
  route: MeteredRoute;
  /** The id a record of its route names (a cluster member's use bills its cluster). */
  resourceId: string;
  /** The component of its route's records (`gpuAmount`, `standardAmount`, …). */
  component: string;
  ratePerHour: number;
  from: number;
  to?: number;
}

export type UseStart = Omit<Use, "from" | "to">;

export class Meter implements ResourceModule {
  private uses: Use[] = [];
  /** The open use of each key. */
  private readonly open = new Map<string, Use>();

  reset(): void {
    this.uses = [];
    this.open.clear();
  }

  snapshot(): Use[] {
    return this.uses;
  }

  /** State files from before billing hold no uses: the families open what runs as they restore. */
  restore(slice: unknown): void {
    this.reset();
    for (const use of (slice as Use[] | undefined) ?? []) {
      this.uses.push(use);
      if (use.to === undefined) this.open.set(use.key, use);
    }
  }

  /** Starts billing `start.key` at `at`, unless it is already billed. */
  start(start: UseStart, at: number): void {
    if (this.open.has(start.key)) return;
    const use: Use = { ...start, from: at };
    this.uses.push(use);
    this.open.set(use.key, use);
  }

  /** Stops billing `key` at `at` (never before it started); nothing when it is not billed. */
  stop(key: string, at: number): void {
    const use = this.open.get(key);
    if (!use) return;
    use.to = Math.max(use.from, at);
    this.open.delete(key);
  }

  /** Whether `key` is billed now. */
  billing(key: string): boolean {
    return this.open.has(key);
  }

  /** Stops every open use whose key starts with `prefix` and is not in `keep` (an endpoint's workers after a change). */
  stopAllBut(prefix: string, keep: ReadonlySet<string>, at: number): void {
    for (const key of [...this.open.keys()]) if (key.startsWith(prefix) && !keep.has(key)) this.stop(key, at);
  }

  /** The account's uses that overlap `[start, end)`, as of `now` (an open use runs until now). */
  usesOf(accountId: string, start: number, end: number, now: number): Array<Use & { to: number }> {
    const found: Array<Use & { to: number }> = [];
    for (const use of this.uses) {
      if (use.accountId !== accountId) continue;
      const to = use.to ?? Math.max(use.from, now);
      if (to > start && use.from < end) found.push({ ...use, to });
    }
    return found;
  }
}
