/**
 * Pod record → wire shape (contract `Pod`): status, actions, cost, runtime and SSH endpoints are
 * derived from the record and the clock at each read (GPU utilisation from the control plane's
 * setting when there is one); the public port mappings are the real listeners the service host
 * opens for a running pod (emulator/services).
 */
import type { z } from "zod";
import { decodeCommand, type Pod } from "../../contract";
import { hash32 } from "../ids";
import { iso, isoOrNull } from "../time";
import { clusterMembership, podActions, podStatus, type DerivedStatus } from "./lifecycle";
import { runningAt, type GpuUtilizationSettings, type PodRecord } from "./record";

export type PodView = z.input<typeof Pod>;
type PodRuntime = NonNullable<PodView["runtime"]>;
type PodSsh = NonNullable<PodView["ssh"]>;

/** Where a running pod's ports answer: listeners the service host binds for it (emulator/services). */
export interface PortMappings {
  /** The address every public port is on. */
  readonly address: string;
  /** The public port of a RUNNING pod's `port/protocol`, the same for the whole run; null while none is bound yet. */
  publicPort(pod: PodRecord, spec: string, now: number): number | null;
}

const SSH_PROXY_HOST = "ssh.compute.local";

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

/**
 * What every GPU of a pod reads at `now` under the control plane's setting: the constant, or the
 * curve's value at `now` (its first point's before that point, its last one's for good after it;
 * `afterSeconds` taken to the millisecond, as the clock counts).
 */
export function gpuUtilizationAt(settings: GpuUtilizationSettings, now: number): number {
  const { spec, since } = settings;
  if ("util" in spec) return spec.util;
  let util = spec.curve[0].util;
  for (const point of spec.curve) {
    if (since + Math.round(point.afterSeconds * 1000) > now) break;
    util = point.util;
  }
  return util;
}

function runtime(pod: PodRecord, now: number, mappings: PortMappings): PodRuntime {
  const started = runningAt(pod.runs[pod.runs.length - 1]);
  const bucket = Math.floor(now / 5000);
  const pct = (salt: string | number, lo: number, hi: number) => lo + (hash32(pod.id, bucket, salt) % (hi - lo + 1));
  const out: PodRuntime = {
    uptime: Math.max(0, Math.floor((now - started) / 1000)),
    cpu: { util: pct("cpu", 3, 65) },
    memory: { util: pct("mem", 10, 80) },
    ports: pod.ports.map((spec) => {
      const [port, type] = spec.split("/");
      // http and tcp alike: a real listener, so what the answer names is what a client reaches.
      const published = mappings.publicPort(pod, spec, now);
      return { private: Number(port), public: published, type, ip: published === null ? null : mappings.address };
    }),
  };
  if (pod.gpu) {
    const set = pod.gpuUtilization ? gpuUtilizationAt(pod.gpuUtilization, now) : undefined;
    out.gpus = Array.from({ length: pod.gpu.count }, (_, i) => ({ util: set ?? pct(`g${i}`, 35, 99), memoryUtil: pct(`m${i}`, 20, 92) }));
  }
  return out;
}

function ssh(pod: PodRecord, status: DerivedStatus, now: number, mappings: PortMappings): PodSsh {
  const token = `${pod.id}-${(hash32("ssh", pod.id) >>> 0).toString(16).padStart(8, "0")}`;
  const proxy = { host: SSH_PROXY_HOST, port: 22, username: token, command: `ssh ${token}@${SSH_PROXY_HOST} -i ~/.ssh/id_ed25519` };
  let direct = null;
  const port = status === "RUNNING" && pod.sshEnabled && pod.ports.includes("22/tcp") ? mappings.publicPort(pod, "22/tcp", now) : null;
  if (port !== null) {
    const host = mappings.address;
    direct = { host, port, username: "root", command: `ssh root@${host} -p ${port} -i ~/.ssh/id_ed25519` };
  }
  return { proxy, direct };
}

/** The wire form of a pod (reference OpenAPI `Pod`, with the contract's rules for each field); `mappings` publishes its ports while it runs. */
export function podView(pod: PodRecord, now: number, mappings: PortMappings): PodView {
  const status = podStatus(pod, now);
  if (status === "GONE") throw new Error(`pod ${pod.id} is gone; it has no view`);
  const command = decodeCommand(pod.args);
  // Member order is the answer's order: container fields, compute, placement, then the rest.
  return {
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
    ...(pod.gpu ? { gpu: pod.gpu } : {}),
    ...(pod.cpu ? { cpu: pod.cpu } : {}),
    cloud: pod.cloud,
    dataCenterId: pod.dataCenterId,
    cudaVersion: pod.cudaVersion,
    ssh: ssh(pod, status, now, mappings),
    ...(pod.cluster ? { cluster: clusterMembership(pod, now) } : {}),
    template: null,
    cost: status === "EXITED" || status === "TERMINATED" ? 0 : pod.costPerHour,
    locked: pod.locked,
    globalNetworking:
      pod.globalIp === null
        ? { enabled: false }
        : { enabled: true, ip: pod.globalIp, internalDns: `${pod.id}.compute.internal` },
    runtime: status === "RUNNING" ? runtime(pod, now, mappings) : null,
    createdAt: iso(pod.createdAt),
    startedAt: isoOrNull(lastStartedAt(pod, now)),
  };
}
