/**
 * An endpoint's workers: `workers.min` of them stay active (none when it is 0), each started at
 * the endpoint's create or at the change that restarted it, INITIALIZING for `readyMs`, then
 * IDLE. A PATCH that changes what the workers run (container or compute) is a new configuration
 * version, and every worker restarts on it with a new id; a change of `workers.min` alone adds or
 * removes workers and leaves the others be. Status is never stored: it follows from the clock.
 *
 * The control plane may hold an endpoint's workers back (`never`: INITIALIZING for good), slow
 * them (`delayMs` instead of `readyMs`) or make them fail their health checks (`unhealthy`:
 * UNHEALTHY where they would be IDLE); settings act from the moment they are set, never before.
 * Workers never take jobs here, so none is ever RUNNING or THROTTLED.
 */
import type { WORKER_STATUSES } from "../../contract";
import { hash32 } from "../ids";

export type WorkerStatus = (typeof WORKER_STATUSES)[number];

/** One active worker: started at `startedAt`, ready `readyMs` later (the timing when it started). */
export interface WorkerSlot {
  id: string;
  startedAt: number;
  readyMs: number;
}

/** An endpoint's active workers and the configuration version they run. */
export interface WorkerFleet {
  /** `endpointVersion`: 1 at create, one more at each PATCH that changes what the workers run. */
  version: number;
  /** Workers started so far (each new one's id is derived from it). */
  started: number;
  workers: WorkerSlot[];
}

/** How an endpoint's workers behave (control plane: `PUT /_emulator/serverless/{id}/workers`). */
export const WORKER_MODES = ["normal", "never", "unhealthy"] as const;
export type WorkerMode = (typeof WORKER_MODES)[number];

/** What the control plane set for an endpoint's workers. In memory only: the store's snapshot leaves it out. */
export interface WorkerSettings {
  /** `never`: INITIALIZING for good; `unhealthy`: UNHEALTHY where they would be IDLE. */
  mode: WorkerMode;
  /** Overrides each worker's `readyMs`; null: its timing. */
  delayMs: number | null;
  /** Emulator-clock instant the settings were set: a worker they make ready is ready no earlier. */
  since: number;
}

/** What an endpoint's workers run: a change of any of these is a new configuration version. */
export const CONFIGURATION = ["image", "args", "disk", "env", "ports", "registry", "gpu", "cpu", "dataCenterIds", "networkVolumes"] as const;

/** A worker id in the service's shape (8 lowercase base-36 characters), the same for the same endpoint and worker number. */
function workerId(endpointId: string, n: number): string {
  const part = (...salt: Array<string | number>) => hash32(...salt).toString(36).padStart(7, "0");
  return (part("worker", endpointId, n) + part(n, endpointId)).slice(0, 8);
}

function started(endpointId: string, fleet: Pick<WorkerFleet, "started">, now: number, readyMs: number): WorkerSlot {
  return { id: workerId(endpointId, fleet.started++), startedAt: now, readyMs };
}

/** The first workers of an endpoint, on configuration version 1. */
export function firstFleet(endpointId: string, count: number, now: number, readyMs: number): WorkerFleet {
  const fleet: WorkerFleet = { version: 1, started: 0, workers: [] };
  for (let i = 0; i < count; i++) fleet.workers.push(started(endpointId, fleet, now, readyMs));
  return fleet;
}

/** Every worker restarts, with a new id, on the next configuration version. */
export function restarted(endpointId: string, fleet: WorkerFleet, count: number, now: number, readyMs: number): void {
  fleet.version++;
  fleet.workers = [];
  for (let i = 0; i < count; i++) fleet.workers.push(started(endpointId, fleet, now, readyMs));
}

/** Workers started or stopped (the newest first) until `count` are active. */
export function resized(endpointId: string, fleet: WorkerFleet, count: number, now: number, readyMs: number): void {
  while (fleet.workers.length < count) fleet.workers.push(started(endpointId, fleet, now, readyMs));
  fleet.workers.length = Math.min(fleet.workers.length, count);
}

/** When the worker is (was) ready; null when the control plane holds it back. */
export function readyAt(worker: WorkerSlot, settings: WorkerSettings | undefined): number | null {
  if (settings?.mode === "never") return null;
  const planned = worker.startedAt + (settings?.delayMs ?? worker.readyMs);
  return settings ? Math.max(planned, settings.since) : planned;
}

export function workerStatus(worker: WorkerSlot, settings: WorkerSettings | undefined, now: number): WorkerStatus {
  const ready = readyAt(worker, settings);
  if (ready === null || now < ready) return "INITIALIZING";
  return settings?.mode === "unhealthy" ? "UNHEALTHY" : "IDLE";
}
