/**
 * The pod lifecycle, as a state machine over the record and the clock. Status is never stored:
 * each start of the container is a `PodRun` with the stage durations it was given, and
 * PROVISIONING → STARTING → RUNNING follow from `now` against those timestamps, so a frozen clock
 * freezes a pod mid-stage and advancing the clock moves it on. Explicit events (stop, exit,
 * error, restart, terminate) end the current run; a terminated pod reads as TERMINATED for the
 * stopping time, then is gone. A cluster member's rank, role and overlay address appear at the
 * instant its cluster assigned them. The store applies transitions through these functions; the
 * store, the rules and the view read the status from here.
 */
import { POD_ACTIVE_STATUSES, POD_ENDED_STATUSES, decodeCommand, type PodActionName, type PodStatus } from "../../contract";
import { lastVisibleUs } from "../logs/timeline";
import { podRunLogs } from "./logs";
import { runningAt, type ClusterBlock, type PodRecord, type PodRun, type RunEnd } from "./record";

/** A pod's status, or "GONE" once its termination completed (then it is not found). */
export type DerivedStatus = PodStatus | "GONE";

/** Running or on its way to running (contract: POD_ACTIVE_STATUSES). */
export const podActive = (status: DerivedStatus): boolean => status !== "GONE" && POD_ACTIVE_STATUSES.has(status);

/** Terminated or gone: the pod never runs again and holds nothing (contract: POD_ENDED_STATUSES). */
export const podEnded = (status: DerivedStatus): boolean => status === "GONE" || POD_ENDED_STATUSES.has(status);

export const currentRun = (pod: PodRecord) => pod.runs[pod.runs.length - 1];

export function podStatus(pod: PodRecord, now: number): DerivedStatus {
  if (pod.terminatedAt !== undefined) return now < (pod.goneAt ?? 0) ? "TERMINATED" : "GONE";
  const run = currentRun(pod);
  if (run.end) return run.end === "error" ? "ERROR" : "EXITED";
  if (now < run.requestedAt + run.provisioningMs) return "PROVISIONING";
  if (now < runningAt(run)) return "STARTING";
  return run.failStart ? "ERROR" : "RUNNING";
}

/** A member's `cluster` block now: rank null, no role or address, until they are assigned (none for other pods). */
export function clusterMembership(pod: PodRecord, now: number): ClusterBlock | undefined {
  const member = pod.cluster;
  if (!member) return undefined;
  if (member.assignedAt !== undefined && now < member.assignedAt) return { id: member.id, rank: null };
  return { id: member.id, rank: member.rank, ...(member.role ? { role: member.role } : {}), ...(member.ip ? { ip: member.ip } : {}) };
}

/** Valid transitions per status (contract decisions: POST /v2/pods/{id}/action). */
export function podActions(status: DerivedStatus): PodActionName[] {
  switch (status) {
    case "RUNNING":
      return ["stop", "restart", "terminate"];
    case "EXITED":
    case "ERROR":
      return ["start", "terminate"];
    case "PROVISIONING":
    case "STARTING":
      return ["stop", "terminate"];
    default:
      return [];
  }
}

/** Records a start that failed on its own as an ended run, before anything else changes it. */
export function settle(pod: PodRecord, now: number): void {
  const run = currentRun(pod);
  if (pod.terminatedAt === undefined && !run.end && run.failStart && now >= runningAt(run)) {
    run.end = "error";
    run.endedAt = runningAt(run);
    run.endUs = lastVisibleUs(podRunLogs(pod), Number.MAX_SAFE_INTEGER) + 1;
  }
}

/** Ends the current run now; its end instant follows every line already visible. */
export function endRun(pod: PodRecord, end: RunEnd, now: number, note?: string): void {
  const run = currentRun(pod);
  if (run.end) return;
  const visible = lastVisibleUs(podRunLogs(pod), now * 1000 + 999);
  run.end = end;
  run.endedAt = now;
  run.endUs = Math.max(now * 1000, visible + 1);
  run.note = note;
}

export function newRun(
  pod: PodRecord,
  now: number,
  stages: { provisioningMs: number; startingMs: number; logIntervalMs: number; serviceStartMs: number },
  failStart: boolean,
): PodRun {
  const command = decodeCommand(pod.args);
  const run: PodRun = {
    requestedAt: now,
    ...stages,
    image: pod.image,
    command: [...(command.entrypoint ?? []), ...(command.cmd ?? [])],
    ports: [...pod.ports],
    failStart,
  };
  pod.runs.push(run);
  // Keep the log history bounded: older runs fall out of the backfill like rotated logs.
  if (pod.runs.length > 20) pod.runs.splice(0, pod.runs.length - 20);
  return run;
}
