/**
 * A container's log as a pure function of its lifecycle, so nothing is stored per line.
 *
 * Each run of a container (create, start, restart) is a `RunLog`: lines at known instants
 * (image pull, container start, a service coming up), the main process's output at a fixed
 * interval while it runs, and the lines written when the run ended. Given the emulator clock,
 * the lines visible now are computed on demand: a tail of 5000, a resume after a
 * `Last-Event-ID`, or the next live lines.
 *
 * Times are integer microseconds since the epoch: every event id is distinct and strictly
 * increasing per pod or sandbox (the contract resumes with "events after this id").
 */
import type { LogSource } from "../../contract";
import { hash32 } from "../ids";

export interface LogEvent {
  us: number;
  source: LogSource;
  line: string;
}

/**
 * The main process's output: the first `burst` lines (its startup banner) `burstUs` apart, then
 * one line per `intervalUs`; each with a small stable jitter so ids look like real timestamps.
 */
export interface PeriodicLines {
  firstUs: number;
  burst: number;
  burstUs: number;
  intervalUs: number;
  /** Exclusive; Infinity while the container runs. */
  endUs: number;
  seed: number;
  line(k: number, us: number): string;
}

export interface RunLog {
  /** Lines scheduled in advance, in time order (system lines, and the container's at known instants); each becomes visible when the clock reaches it. */
  scheduled: LogEvent[];
  container?: PeriodicLines;
  /** Lines written when the run ended; visible at once. */
  closing: LogEvent[];
}

export interface LogFilter {
  source?: LogSource;
  /** Latest visible instant (the emulator clock, in microseconds). */
  boundUs: number;
}

const BURST_US = 40_000;

/** Startup lines come in quick succession, the rest at the process's pace. */
export function periodic(firstUs: number, burst: number, intervalUs: number, endUs: number, seed: number, line: PeriodicLines["line"]): PeriodicLines {
  return { firstUs, burst, burstUs: Math.min(BURST_US, intervalUs), intervalUs, endUs, seed, line };
}

function lineUs(p: PeriodicLines, k: number): number {
  const step = k < p.burst ? p.burstUs : p.intervalUs;
  const planned = k < p.burst ? p.firstUs + k * p.burstUs : p.firstUs + p.burst * p.burstUs + (k - p.burst) * p.intervalUs;
  // Jitter below the step keeps lines strictly ordered.
  return planned + (hash32(p.seed, k) % Math.min(1000, step));
}

/** The index of the line planned at or just before `us` (callers step from it to the exact one). */
function indexNear(p: PeriodicLines, us: number): number {
  const burstEnd = p.firstUs + p.burst * p.burstUs;
  if (us < burstEnd) return Math.max(0, Math.floor((us - p.firstUs) / p.burstUs));
  return p.burst + Math.floor((us - burstEnd) / p.intervalUs);
}

function lastVisibleIndex(p: PeriodicLines, boundUs: number): number {
  const limit = Math.min(boundUs, p.endUs - 1);
  if (limit < p.firstUs) return -1;
  let k = indexNear(p, limit) + 1;
  while (k >= 0 && lineUs(p, k) > limit) k--;
  return k;
}

function firstIndexAfter(p: PeriodicLines, afterUs: number): number {
  if (afterUs < p.firstUs) return 0;
  let k = Math.max(0, indexNear(p, afterUs) - 1);
  while (lineUs(p, k) <= afterUs) k++;
  return k;
}

/**
 * The first instant at or after `us` at which the process prints nothing: a line scheduled there
 * (a service coming up, while the process writes its own) keeps every id of the run unique.
 */
export function freeUs(p: PeriodicLines | undefined, us: number): number {
  if (!p) return us;
  // Line instants strictly increase, so stepping past a taken one meets at most the next.
  for (let k = firstIndexAfter(p, us - 1); lineUs(p, k) === us; k++) us++;
  return us;
}

const wants = (filter: LogFilter, source: LogSource) => filter.source === undefined || filter.source === source;

/** Two lists in the same time order, as one; `later` says which of two events comes first in that order. */
function merged(a: LogEvent[], b: LogEvent[], later: (x: LogEvent, y: LogEvent) => boolean): LogEvent[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out: LogEvent[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) out.push(j >= b.length || (i < a.length && !later(a[i], b[j])) ? a[i++] : b[j++]);
  return out;
}

/** Every visible event with a time after `afterUs`, oldest first, at most `limit`. */
export function eventsAfter(runs: RunLog[], afterUs: number, filter: LogFilter, limit = Infinity): LogEvent[] {
  const out: LogEvent[] = [];
  for (const run of runs) {
    if (out.length >= limit) break;
    const scheduled = run.scheduled.filter((e) => e.us > afterUs && e.us <= filter.boundUs && wants(filter, e.source));
    const output: LogEvent[] = [];
    const p = run.container;
    if (p && wants(filter, "container")) {
      const last = lastVisibleIndex(p, filter.boundUs);
      for (let k = firstIndexAfter(p, afterUs); k <= last && out.length + output.length < limit; k++) {
        const us = lineUs(p, k);
        output.push({ us, source: "container", line: p.line(k, us) });
      }
    }
    // Scheduled lines may fall between the process's own (a service coming up while it prints).
    for (const e of merged(scheduled, output, (x, y) => x.us > y.us)) if (out.length < limit) out.push(e);
    for (const e of run.closing) if (e.us > afterUs && wants(filter, e.source) && out.length < limit) out.push(e);
  }
  return out;
}

/** The last `n` visible events, oldest first (the `tail` backfill). */
export function lastEvents(runs: RunLog[], n: number, filter: LogFilter): LogEvent[] {
  const reversed: LogEvent[] = [];
  for (let r = runs.length - 1; r >= 0 && reversed.length < n; r--) {
    const run = runs[r];
    for (let i = run.closing.length - 1; i >= 0 && reversed.length < n; i--) {
      if (wants(filter, run.closing[i].source)) reversed.push(run.closing[i]);
    }
    const room = n - reversed.length;
    const output: LogEvent[] = [];
    const p = run.container;
    if (p && wants(filter, "container")) {
      for (let k = lastVisibleIndex(p, filter.boundUs); k >= 0 && output.length < room; k--) {
        const us = lineUs(p, k);
        output.push({ us, source: "container", line: p.line(k, us) });
      }
    }
    const scheduled: LogEvent[] = [];
    for (let i = run.scheduled.length - 1; i >= 0 && scheduled.length < room; i--) {
      const e = run.scheduled[i];
      if (e.us <= filter.boundUs && wants(filter, e.source)) scheduled.push(e);
    }
    for (const e of merged(scheduled, output, (x, y) => x.us < y.us)) if (reversed.length < n) reversed.push(e);
  }
  return reversed.reverse();
}

/** Time of the newest visible event of any source; -Infinity when there is none. */
export function lastVisibleUs(runs: RunLog[], boundUs: number): number {
  const last = lastEvents(runs, 1, { boundUs });
  return last.length > 0 ? last[0].us : -Infinity;
}

/**
 * Builds a run's scheduled lines in order: `at(line, plannedUs)` never goes back in time, so
 * two lines never share a microsecond even when a stage lasts zero milliseconds.
 */
export class Schedule {
  readonly events: LogEvent[] = [];
  private lastUs: number;

  constructor(afterUs: number) {
    this.lastUs = afterUs;
  }

  at(plannedUs: number, line: string, source: LogSource = "system"): number {
    const us = Math.max(Math.floor(plannedUs), this.lastUs + 1);
    this.events.push({ us, source, line });
    this.lastUs = us;
    return us;
  }

  /** Spreads lines evenly over a stage. */
  spread(fromUs: number, spanUs: number, lines: string[]): void {
    lines.forEach((line, i) => this.at(fromUs + (spanUs * i) / Math.max(lines.length, 1), line));
  }

  get last(): number {
    return this.lastUs;
  }
}
