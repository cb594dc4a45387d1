/**
 * The emulator's one source of time. Every timestamp, lifecycle stage, rate-limit window, expiry
 * and log line is read from here, so a frozen clock freezes the whole service and advancing it
 * applies every transition that became due (tests cover an idle timeout in milliseconds).
 *
 * The clock is real time plus an offset, or a fixed instant while frozen. Listeners hear about
 * every jump (freeze, advance, set) so open log streams can flush lines that became due.
 */
export interface ClockState {
  offsetMs: number;
  frozenAt: number | null;
}

export class Clock {
  private offsetMs = 0;
  private frozenAt: number | null = null;
  private readonly listeners = new Set<() => void>();

  now(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }

  get frozen(): boolean {
    return this.frozenAt !== null;
  }

  freeze(): void {
    if (this.frozenAt === null) this.frozenAt = this.now();
  }

  /** Resumes real time from the frozen instant (no jump forward to wall-clock time). */
  unfreeze(): void {
    if (this.frozenAt === null) return;
    this.offsetMs = this.frozenAt - Date.now();
    this.frozenAt = null;
    this.changed();
  }

  advance(ms: number): void {
    if (ms <= 0) return;
    if (this.frozenAt !== null) this.frozenAt += ms;
    else this.offsetMs += ms;
    this.changed();
  }

  set(epochMs: number): void {
    if (this.frozenAt !== null) this.frozenAt = epochMs;
    else this.offsetMs = epochMs - Date.now();
    this.changed();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  snapshot(): ClockState {
    return { offsetMs: this.offsetMs, frozenAt: this.frozenAt };
  }

  /** After a restart the clock continues where it was, so stored timestamps keep their meaning. */
  restore(state: ClockState): void {
    this.offsetMs = state.offsetMs;
    this.frozenAt = state.frozenAt;
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
