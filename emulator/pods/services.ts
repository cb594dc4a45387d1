/**
 * When a pod's services come up and what they print as they do: a pure function of the record,
 * read by the log timeline (logs.ts) and by the service host that answers on the pod's ports
 * (emulator/services). Each `port/protocol` of a run is one service: `22/tcp` an SSH server,
 * an `http` port a web server, any other `tcp` port a plain TCP server.
 *
 * A run's services come up together, `delay` after the run became RUNNING: the pod's
 * control-plane override, else the run's `serviceStartMs`. Settings set later act from the
 * moment they were set, never before it (a service switched from `never` to `normal` comes up
 * at the switch, not back in time); in mode `never` they do not come up at all.
 */
import { PORT_PROTOCOL } from "../../contract";
import { runningAt, type PodRecord, type PodRun } from "./record";

export type ServiceKind = "ssh" | "http" | "tcp";

export interface ServicePort {
  /** As in `ports`: `22/tcp`. */
  spec: string;
  port: number;
  kind: ServiceKind;
}

export function servicePort(spec: string): ServicePort | undefined {
  const match = PORT_PROTOCOL.exec(spec);
  if (!match) return undefined;
  const port = Number(match[1]);
  const kind: ServiceKind = match[2] === "http" ? "http" : port === 22 ? "ssh" : "tcp";
  return { spec, port, kind };
}

/** The services of a run: its ports as they were when it started. */
export function runServices(pod: PodRecord, run: PodRun): ServicePort[] {
  return (run.ports ?? pod.ports).flatMap((spec) => servicePort(spec) ?? []);
}

/** When the run's services come (or, in mode `never`, would have come) up; null for a run that never ran. */
export function servicePlannedAt(pod: PodRecord, run: PodRun): number | null {
  if (run.failStart) return null;
  const settings = pod.service;
  const planned = runningAt(run) + (settings?.delayMs ?? run.serviceStartMs ?? 0);
  return settings ? Math.max(planned, settings.since) : planned;
}

/** When the run's services come up; null when they never do (a failed start, mode `never`). */
export function serviceUpAt(pod: PodRecord, run: PodRun): number | null {
  return pod.service?.mode === "never" ? null : servicePlannedAt(pod, run);
}

/** What a service prints as it comes up: what a log-matching readiness probe waits for. */
export function announcement(service: ServicePort): string {
  switch (service.kind) {
    case "ssh":
      return `Server listening on 0.0.0.0 port ${service.port}.`;
    case "http":
      return `Uvicorn running on http://0.0.0.0:${service.port} (Press CTRL+C to quit)`;
    case "tcp":
      return `Listening on 0.0.0.0:${service.port}`;
  }
}

/** The one line a run prints, at the instant its services would have come up, when they never do. */
export const NEVER_STARTED_LINE = "service failed to start: address in use (emulator: mode never)";

/** The lines a run's services print at `servicePlannedAt`: one per service, or the failure line. */
export function serviceLines(pod: PodRecord, run: PodRun): string[] {
  const services = runServices(pod, run);
  if (services.length === 0) return [];
  return pod.service?.mode === "never" ? [NEVER_STARTED_LINE] : services.map(announcement);
}
