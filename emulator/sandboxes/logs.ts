/** A sandbox's log (one run: creation, the process's output, how it ended) and the subject its stream follows. */
import type { TerminationReason } from "../../contract";
import { hash32 } from "../ids";
import { containerId, imagePullLines, outputLine, processOutput } from "../logs/lines";
import type { LogSubject } from "../logs/stream";
import { periodic, Schedule, type LogEvent, type RunLog } from "../logs/timeline";
import type { Derived, SandboxRecord, Sandboxes } from "./store";

const EXPIRY_LINES: Partial<Record<TerminationReason, (sb: SandboxRecord) => string>> = {
  USER_REQUESTED: () => "Terminating sandbox at the user's request; compute released",
  IDLE_TIMEOUT: (sb) => `No activity for ${sb.idleTimeoutSeconds}s; terminating sandbox (IDLE_TIMEOUT)`,
  MAX_LIFETIME: (sb) => `Maximum lifetime of ${sb.maxLifetimeSeconds}s reached; terminating sandbox (MAX_LIFETIME)`,
};

export function sandboxRunLog(sb: SandboxRecord, d: Pick<Derived, "final">): RunLog {
  const seed = hash32(sb.id);
  const cid = containerId(seed);
  const startUs = sb.createdAt * 1000;
  const schedule = new Schedule(startUs - 1);
  schedule.spread(startUs, sb.creatingMs * 1000, [
    `Sandbox ${sb.id} scheduled in ${sb.dataCenterId}`,
    ...imagePullLines(sb.image),
    `Creating container ${cid}`,
    `Starting container ${cid}`,
  ]);
  const readyAt = (sb.createdAt + sb.creatingMs) * 1000;
  const final = d.final;
  let container: RunLog["container"];
  const closing: LogEvent[] = [];
  if (sb.failStart) {
    schedule.at(readyAt, `Error response from daemon: pull access denied for ${sb.image}, repository does not exist or may require 'docker login'`);
    schedule.at(readyAt, `Container ${cid} failed to start; sandbox FAILED (START_FAILED)`);
  } else {
    const readyUs = schedule.at(readyAt, `Container ${cid} started; sandbox is RUNNING`);
    const profile = processOutput(sb.image, []);
    const intervalUs = Math.max(1, sb.logIntervalMs) * 1000;
    container = periodic(readyUs + 1000, profile.startup.length, intervalUs, final?.endUs ?? Infinity, seed, outputLine(profile, seed));
    if (final) {
      const lines: Array<Pick<LogEvent, "source" | "line">> =
        final.reason === "CONTAINER_EXITED"
          ? [
              { source: "container", line: "Traceback (most recent call last):" },
              { source: "container", line: "SystemExit: 1" },
              { source: "system", line: `Container ${cid} exited with code 1; sandbox FAILED (CONTAINER_EXITED)` },
            ]
          : [{ source: "system", line: (EXPIRY_LINES[final.reason] ?? (() => "Sandbox terminated"))(sb) }];
      lines.forEach((e, i) => closing.push({ ...e, us: final.endUs + i }));
    }
  }
  return { scheduled: schedule.events.filter((e) => !final || e.us < final.endUs || sb.failStart), container, closing };
}

/** `clock` reads the time of an open/close; `persist` saves the activity a closing stream records. */
export function sandboxLogSubject(sandboxes: Sandboxes, sb: SandboxRecord, clock: () => number, persist: () => void): LogSubject {
  return {
    runs: (now) => [sandboxRunLog(sb, sandboxes.derive(sb, now))],
    unavailable: (now) => {
      const state = sandboxes.derive(sb, now).state;
      if (state === "RUNNING") return null;
      if (state === "CREATING") return { code: "sandbox_starting", detail: `Sandbox ${sb.id} is starting; its container does not exist yet. Retry shortly.` };
      if (state === "FAILED") return { code: "container_exited", detail: `Sandbox ${sb.id} has FAILED; its container is not running` };
      return { code: "sandbox_terminated", detail: `Sandbox ${sb.id} is terminated` };
    },
    opened: () => sandboxes.streamOpened(sb, clock()),
    closed: () => {
      sandboxes.streamClosed(sb, clock());
      persist();
    },
  };
}
