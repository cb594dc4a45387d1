/**
 * A pod as stored, and everything derived from it and the clock: status, actions, cost,
 * runtime, SSH endpoints and the log timeline.
 *
 * Status is never stored. Each start of the container is a `PodRun` with the stage durations it
 * was given; PROVISIONING, STARTING and RUNNING follow from `now` against those timestamps, so a
 * frozen clock freezes a pod mid-stage and advancing the clock moves it on. Explicit events
 * (stop, exit, error, restart, delete) end the current run.
 */
import type { Cloud, ClusterRole, Mounts, PodActionName, PodStatus } from "../../contract";
import { decodeCommand } from "../../contract";
import { hash32 } from "../ids";
import { containerId, imagePullLines, outputLine, processOutput } from "../logs/lines";
import { lastVisibleUs, periodic, Schedule, type LogEvent, type RunLog } from "../logs/timeline";
import { iso, isoOrNull } from "../time";
import { machineIp } from "./catalog";

export type RunEnd = "stop" | "exit" | "error" | "restart" | "terminate";

export interface PodRun {
  requestedAt: number;
  provisioningMs: number;
  startingMs: number;
  logIntervalMs: number;
  image: string;
  command: string[];
  /** The container will fail as it starts (control plane), ending in ERROR. */
  failStart: boolean;
  endedAt?: number;
  /** Microsecond instant of the end, after every line already visible (see endRun). */
  endUs?: number;
  end?: RunEnd;
  /** Why it ended, for the closing log line. */
  note?: string;
}

export interface PodRecord {
  id: string;
  accountId: string;
  name: string;
  image: string;
  args: string;
  disk: number;
  /** As returned: template env, body env and the injected variables. */
  env: Record<string, string>;
  /** PUBLIC_KEY / JUPYTER_PASSWORD injected at create; re-applied when a PATCH replaces env. */
  injected: Record<string, string>;
  ports: string[];
  registry: string | null;
  mounts: Mounts;
  gpu?: { id: string; count: number; vcpuCount: number; memory: number };
  cpu?: { id: string; vcpuCount: number; memory: number };
  cloud: Cloud;
  dataCenterId: string;
  /** The machine the pod is pinned to (a start after a stop comes back to it). */
  hostId: string;
  cudaVersion: string | null;
  /** startSsh was set and a PUBLIC_KEY ended up in env. */
  sshEnabled: boolean;
  /** Requested global networking; takes effect at the next start. */
  globalNetworking: boolean;
  /** Global-network address of the current run, or null. */
  globalIp: string | null;
  locked: boolean;
  costPerHour: number;
  /** Whether the pod currently holds its GPUs / vCPUs on the host. */
  reserved: boolean;
  createdAt: number;
  cluster?: { id: string; rank: number | null; role?: ClusterRole; ip?: string };
  runs: PodRun[];
  terminatedAt?: number;
  /** After this instant a terminated pod is gone (404). */
  goneAt?: number;
  /** The next start fails (control plane `fail-start` on a pod that is not starting). */
  failNextStart: boolean;
}

export type DerivedStatus = PodStatus | "GONE";

const currentRun = (pod: PodRecord) => pod.runs[pod.runs.length - 1];
export const runningAt = (run: PodRun) => run.requestedAt + run.provisioningMs + run.startingMs;

export function podStatus(pod: PodRecord, now: number): DerivedStatus {
  if (pod.terminatedAt !== undefined) return now < (pod.goneAt ?? 0) ? "TERMINATED" : "GONE";
  const run = currentRun(pod);
  if (run.end) return run.end === "error" ? "ERROR" : "EXITED";
  if (now < run.requestedAt + run.provisioningMs) return "PROVISIONING";
  if (now < runningAt(run)) return "STARTING";
  return run.failStart ? "ERROR" : "RUNNING";
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
  stages: { provisioningMs: number; startingMs: number; logIntervalMs: number },
  failStart: boolean,
): PodRun {
  const command = decodeCommand(pod.args);
  const run: PodRun = {
    requestedAt: now,
    ...stages,
    image: pod.image,
    command: [...(command.entrypoint ?? []), ...(command.cmd ?? [])],
    failStart,
  };
  pod.runs.push(run);
  // Keep the log history bounded: older runs fall out of the backfill like rotated logs.
  if (pod.runs.length > 20) pod.runs.splice(0, pod.runs.length - 20);
  return run;
}

const SSH_PROXY_HOST = "ssh.compute.local";

function publicPort(pod: PodRecord, privatePort: number): number {
  return 10000 + (hash32(pod.id, pod.hostId, privatePort) % 50000);
}

function lastStartedAt(pod: PodRecord, now: number): number | null {
  for (let i = pod.runs.length - 1; i >= 0; i--) {
    const run = pod.runs[i];
    const at = runningAt(run);
    if (run.failStart || at > now) continue;
    if (run.endedAt !== undefined && run.endedAt < at) continue;
    return at;
  }
  return null;
}

function runtime(pod: PodRecord, now: number) {
  const started = runningAt(currentRun(pod));
  const bucket = Math.floor(now / 5000);
  const ip = machineIp(pod.hostId);
  const pct = (salt: string | number, lo: number, hi: number) => lo + (hash32(pod.id, bucket, salt) % (hi - lo + 1));
  const out: Record<string, unknown> = {
    uptime: Math.max(0, Math.floor((now - started) / 1000)),
    cpu: { util: pct("cpu", 3, 65) },
    memory: { util: pct("mem", 10, 80) },
    ports: pod.ports.map((spec) => {
      const [port, type] = spec.split("/");
      const privatePort = Number(port);
      // http ports are reached through the service's HTTPS proxy; tcp ports get a public mapping.
      return type === "tcp"
        ? { private: privatePort, public: publicPort(pod, privatePort), type, ip }
        : { private: privatePort, public: null, type, ip: null };
    }),
  };
  if (pod.gpu) {
    out.gpus = Array.from({ length: pod.gpu.count }, (_, i) => ({ util: pct(`g${i}`, 35, 99), memoryUtil: pct(`m${i}`, 20, 92) }));
  }
  return out;
}

function ssh(pod: PodRecord, status: DerivedStatus) {
  const token = `${pod.id}-${(hash32("ssh", pod.id) >>> 0).toString(16).padStart(8, "0")}`;
  const proxy = { host: SSH_PROXY_HOST, port: 22, username: token, command: `ssh ${token}@${SSH_PROXY_HOST} -i ~/.ssh/id_ed25519` };
  let direct = null;
  if (status === "RUNNING" && pod.sshEnabled && pod.ports.includes("22/tcp")) {
    const host = machineIp(pod.hostId);
    const port = publicPort(pod, 22);
    direct = { host, port, username: "root", command: `ssh root@${host} -p ${port} -i ~/.ssh/id_ed25519` };
  }
  return { proxy, direct };
}

/** The wire form of a pod (reference OpenAPI `Pod`, with the contract's rules for each field). */
export function podView(pod: PodRecord, now: number): Record<string, unknown> {
  const status = podStatus(pod, now);
  const command = decodeCommand(pod.args);
  const view: Record<string, unknown> = {
    id: pod.id,
    name: pod.name,
    status,
    actions: podActions(status),
    image: pod.image,
    args: pod.args,
    entrypoint: command.entrypoint ?? [],
    cmd: command.cmd ?? [],
    disk: pod.disk,
    mounts: pod.mounts,
    ports: pod.ports,
    env: pod.env,
    registry: pod.registry,
  };
  if (pod.gpu) view.gpu = pod.gpu;
  if (pod.cpu) view.cpu = pod.cpu;
  Object.assign(view, {
    cloud: pod.cloud,
    dataCenterId: pod.dataCenterId,
    cudaVersion: pod.cudaVersion,
    ssh: ssh(pod, status),
  });
  if (pod.cluster) view.cluster = pod.cluster;
  Object.assign(view, {
    template: null,
    cost: status === "EXITED" || status === "TERMINATED" ? 0 : pod.costPerHour,
    locked: pod.locked,
    globalNetworking:
      pod.globalIp === null
        ? { enabled: false }
        : { enabled: true, ip: pod.globalIp, internalDns: `${pod.id}.compute.internal` },
    runtime: status === "RUNNING" ? runtime(pod, now) : null,
    createdAt: iso(pod.createdAt),
    startedAt: isoOrNull(lastStartedAt(pod, now)),
  });
  return view;
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
