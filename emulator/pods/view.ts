/**
 * Pod record → wire shape (contract `Pod`): status, actions, cost, runtime and SSH endpoints are
 * derived from the record and the clock at each read.
 */
import type { z } from "zod";
import { decodeCommand, type Pod } from "../../contract";
import { hash32 } from "../ids";
import { machineIp } from "../placement/capacity";
import { iso, isoOrNull } from "../time";
import { clusterMembership, podActions, podStatus, runningAt, type DerivedStatus } from "./lifecycle";
import type { PodRecord } from "./record";

export type PodView = z.input<typeof Pod>;
type PodRuntime = NonNullable<PodView["runtime"]>;
type PodSsh = NonNullable<PodView["ssh"]>;

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

function runtime(pod: PodRecord, now: number): PodRuntime {
  const started = runningAt(pod.runs[pod.runs.length - 1]);
  const bucket = Math.floor(now / 5000);
  const ip = machineIp(pod.hostId);
  const pct = (salt: string | number, lo: number, hi: number) => lo + (hash32(pod.id, bucket, salt) % (hi - lo + 1));
  const out: PodRuntime = {
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

function ssh(pod: PodRecord, status: DerivedStatus): PodSsh {
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
export function podView(pod: PodRecord, now: number): PodView {
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
    ssh: ssh(pod, status),
    ...(pod.cluster ? { cluster: clusterMembership(pod, now) } : {}),
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
  };
}
