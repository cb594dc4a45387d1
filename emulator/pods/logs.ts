/**
 * A pod's log: one `RunLog` per start of its container (system lines at known instants, the
 * process's output, the closing lines of how it ended), and the subject its stream follows.
 */
import { hash32 } from "../ids";
import { containerId, imagePullLines, outputLine, processOutput } from "../logs/lines";
import type { LogSubject } from "../logs/stream";
import { periodic, Schedule, type LogEvent, type RunLog } from "../logs/timeline";
import { podStatus, settle, type PodRecord, type PodRun } from "./store";

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
    let scheduled = schedule.events;
    const closing: LogEvent[] = [];
    if (run.endUs !== undefined) {
      const endUs = run.endUs;
      scheduled = scheduled.filter((e) => e.us < endUs);
      closingLines(pod, run, cid).forEach((e, i) => closing.push({ ...e, us: endUs + i }));
    }
    out.push({ scheduled, container, closing });
    previousUs = closing.length > 0 ? closing[closing.length - 1].us : (run.endUs ?? schedule.last);
  });
  return out;
}

/** What the pod's log stream follows; pods stream in STARTING and RUNNING (409 codes as sandboxes'). */
export function podLogSubject(pod: PodRecord): LogSubject {
  return {
    runs: () => podRunLogs(pod),
    unavailable: (at) => {
      settle(pod, at);
      const status = podStatus(pod, at);
      switch (status) {
        case "STARTING":
        case "RUNNING":
          return null;
        case "PROVISIONING":
          return { code: "sandbox_starting", detail: `Pod ${pod.id} is PROVISIONING; its container does not exist yet. Retry shortly.` };
        case "EXITED":
        case "ERROR":
          return { code: "container_exited", detail: `Pod ${pod.id} is ${status}; its container is not running` };
        default:
          return { code: "sandbox_terminated", detail: `Pod ${pod.id} is terminated` };
      }
    },
  };
}
