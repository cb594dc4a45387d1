/**
 * A pod's log: one `RunLog` per start of its container (system lines at known instants, the
 * process's output, what its services print as they come up, the closing lines of how it
 * ended). A pure function of the record, so the lifecycle can place the end of a run after its
 * last visible line.
 */
import { hash32 } from "../ids";
import { containerId, imagePullLines, outputLine, processOutput } from "../logs/lines";
import { freeUs, periodic, Schedule, type LogEvent, type PeriodicLines, type RunLog } from "../logs/timeline";
import type { PodRecord, PodRun } from "./record";
import { serviceLines, servicePlannedAt } from "./services";

/**
 * What the run's services print as they come up (services.ts), after the container started and
 * never at an instant the process's own output takes, so log-matching probes see them exactly
 * when the services answer.
 */
function serviceEvents(pod: PodRecord, run: PodRun, afterUs: number, output: PeriodicLines | undefined): LogEvent[] {
  const at = servicePlannedAt(pod, run);
  if (at === null) return [];
  let us = Math.max(at * 1000, afterUs + 1);
  return serviceLines(pod, run).map((line) => {
    us = freeUs(output, us);
    return { us: us++, source: "container" as const, line };
  });
}

function closingLines(pod: PodRecord, run: PodRun, cid: string): Array<Pick<LogEvent, "source" | "line">> {
  const system = (line: string) => ({ source: "system" as const, line });
  switch (run.end) {
    case "stop":
      return [system(`Stopping container ${cid}`), system(`Container ${cid} exited with code 0; pod is EXITED`)];
    case "exit":
      return [system(`Container ${cid} exited with code 0 (main process finished); pod is EXITED`)];
    case "error":
      if (run.failStart) return [];
      return [
        { source: "container", line: run.note ?? "RuntimeError: CUDA error: an illegal memory access was encountered" },
        system(`Container ${cid} exited with code 1; pod is ERROR`),
      ];
    case "restart":
      return [system(`Restarting container ${cid}: ${run.note ?? "restart requested"}`)];
    case "terminate":
      return [system(`Stopping container ${cid}`), system(`Pod ${pod.id} terminated; compute released`)];
    default:
      return [];
  }
}

/** The pod's log, one `RunLog` per start of its container. */
export function podRunLogs(pod: PodRecord): RunLog[] {
  const out: RunLog[] = [];
  let previousUs = -Infinity;
  pod.runs.forEach((run, index) => {
    const seed = hash32(pod.id, run.requestedAt, index);
    const cid = containerId(seed);
    const startUs = Math.max(run.requestedAt * 1000, previousUs + 1);
    const schedule = new Schedule(startUs - 1);
    const provisioningUs = run.provisioningMs * 1000;
    if (run.provisioningMs > 0) {
      schedule.spread(startUs, provisioningUs, [
        `Pod ${pod.id} scheduled on machine ${pod.hostId} in ${pod.dataCenterId}`,
        ...imagePullLines(run.image),
      ]);
    } else {
      schedule.at(startUs, `Starting pod ${pod.id} on machine ${pod.hostId}`);
    }
    schedule.spread(startUs + provisioningUs, run.startingMs * 1000, [`Creating container ${cid}`, `Starting container ${cid}`]);
    const readyUs = schedule.at(startUs + provisioningUs + run.startingMs * 1000, run.failStart ? `Container ${cid} failed to start` : `Container ${cid} started; pod is RUNNING`);
    let container: RunLog["container"];
    if (run.failStart) {
      const exe = run.command[0] ?? "/start.sh";
      schedule.at(readyUs, `Error response from daemon: failed to create task for container: exec: "${exe}": executable file not found in $PATH: unknown`);
      schedule.at(readyUs, `Container ${cid} exited with code 127; pod is ERROR`);
    } else {
      const profile = processOutput(run.image, run.command);
      const intervalUs = Math.max(1, run.logIntervalMs) * 1000;
      container = periodic(readyUs + 1000, profile.startup.length, intervalUs, run.endUs ?? Infinity, seed, outputLine(profile, seed));
    }
    let scheduled = [...schedule.events, ...serviceEvents(pod, run, readyUs, container)];
    const closing: LogEvent[] = [];
    if (run.endUs !== undefined) {
      const endUs = run.endUs;
      scheduled = scheduled.filter((e) => e.us < endUs);
      closingLines(pod, run, cid).forEach((e, i) => closing.push({ ...e, us: endUs + i }));
    }
    out.push({ scheduled, container, closing });
    previousUs = closing.length > 0 ? closing[closing.length - 1].us : (run.endUs ?? (scheduled.at(-1)?.us ?? schedule.last));
  });
  return out;
}
