/** A sandbox's log: one run (creation, the process's output, how it ended), a pure function of the record and its derived end. */
import type { TerminationReason } from "../../contract";
import { hash32 } from "../ids";
import { containerId, imagePullLines, outputLine, processOutput } from "../logs/lines";
import { periodic, Schedule, type LogEvent, type RunLog } from "../logs/timeline";
import type { Derived, SandboxRecord } from "./record";

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
