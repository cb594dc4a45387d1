/**
 * Pods as stored, their status and their lifecycle: create, PATCH, actions, delete and the
 * control plane's events. Rules are cited from the v2 document ("v2") and the contract
 * decisions ("decisions"); the checks that need the world's data are in rules.ts.
 *
 * Status is never stored. Each start of the container is a `PodRun` with the stage durations it
 * was given; PROVISIONING, STARTING and RUNNING follow from `now` against those timestamps, so a
 * frozen clock freezes a pod mid-stage and advancing the clock moves it on. Explicit events
 * (stop, exit, error, restart, delete) end the current run.
 */
import { decodeCommand, storedArgs, type Cloud, type ClusterRole, type Mounts, type PodActionName, type PodStatus, type UpdatePodRequest } from "../../contract";
import type { AccountRecord } from "../accounts/store";
import type { Fixture, PodFixture } from "../fixture";
import { badRequest, conflict, notFound } from "../http";
import { hash32, randomId } from "../ids";
import { lastVisibleUs } from "../logs/timeline";
import type { World } from "../module";
import type { Hold } from "../placement/capacity";
import { cpuPodCostPerHour, gpuPodCostPerHour } from "../../contract/estimate";
import { TableModule } from "../records";
import type { TemplateRecord } from "../templates/store";
import { podRunLogs } from "./logs";
import { globalNetworkingRefusalOf, type CreatePlan } from "./rules";

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


/** What the pod holds on its machine (or CPU pool) while it runs. */
function holdOf(pod: PodRecord): Hold | undefined {
  if (pod.gpu) return { kind: "gpu", machineId: pod.hostId, gpus: pod.gpu.count };
  if (pod.cpu) return { kind: "cpu", dataCenterId: pod.dataCenterId, flavorId: pod.cpu.id, vcpus: pod.cpu.vcpuCount };
  return undefined;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export class Pods extends TableModule<PodRecord> {
  readonly name = "pods";

  constructor(private readonly world: World) {
    super("pod");
  }

  // ---- state ---------------------------------------------------------------------------------

  protected override seed(fixture: Fixture, now: number): PodRecord[] {
    return fixture.pods.map((seed) => this.fromFixture(seed, now));
  }

  /** Fixture pods have been running (or stopped) for a while when the emulator starts. */
  private fromFixture(seed: PodFixture, now: number): PodRecord {
    const { catalog, capacity } = this.world;
    const gpuType = seed.gpu ? catalog.gpuTypes.get(seed.gpu.id) : undefined;
    const flavor = seed.cpu ? catalog.cpuFlavors.get(seed.cpu.id) : undefined;
    const machine = seed.gpu
      ? capacity.placeGpu({ gpuTypeId: seed.gpu.id, count: seed.gpu.count, cloud: seed.cloud, dataCenterIds: [seed.dataCenterId], cuda: {} })
      : undefined;
    const running = seed.status === "RUNNING";
    const startedAt = now - seed.startedSecondsAgo * 1000;
    const pod: PodRecord = {
      id: seed.id,
      accountId: seed.accountId,
      name: seed.name,
      image: seed.image,
      args: seed.args,
      disk: seed.disk,
      env: { ...seed.env },
      injected: {},
      ports: [...seed.ports],
      registry: null,
      mounts: {},
      cloud: seed.cloud,
      dataCenterId: seed.dataCenterId,
      hostId: machine?.id ?? `${seed.dataCenterId.toLowerCase()}-host-${hash32(seed.id) % 1000}`,
      cudaVersion: machine?.cudaVersion ?? null,
      sshEnabled: seed.ports.includes("22/tcp"),
      globalNetworking: false,
      globalIp: null,
      locked: false,
      costPerHour: 0,
      reserved: false,
      createdAt: startedAt - 60000,
      cluster: seed.cluster,
      runs: [],
      failNextStart: false,
    };
    if (seed.gpu && gpuType) {
      const count = seed.gpu.count;
      pod.gpu = { id: gpuType.id, count, vcpuCount: (machine?.vcpuPerGpu ?? 8) * count, memory: (machine?.ramPerGpu ?? 32) * count };
      pod.costPerHour = gpuPodCostPerHour(gpuType, seed.cloud, count);
    } else if (seed.cpu && flavor) {
      pod.cpu = { id: flavor.id, vcpuCount: seed.cpu.vcpuCount, memory: Math.floor(seed.cpu.vcpuCount * flavor.ramGbPerVcpu) };
      pod.costPerHour = cpuPodCostPerHour(flavor, seed.cpu.vcpuCount);
    }
    // A seeded GPU pod without a machine of its own (none matched) holds nothing.
    if (running && (machine || seed.cpu)) this.reserve(pod);
    newRun(pod, startedAt - 20000, { provisioningMs: 12000, startingMs: 8000, logIntervalMs: this.world.timings.logIntervalMs }, false);
    if (!running) endRun(pod, "stop", startedAt + 600000);
    return pod;
  }

  /** Purges pods whose termination completed; true when something changed. */
  sweep(now: number): boolean {
    return this.records.changeEach((pod) => {
      if (podStatus(pod, now) !== "GONE") return false;
      this.records.delete(pod);
      return true;
    });
  }

  /** Id of a live pod of the account that mounts this network volume. */
  podUsingVolume(volumeId: string, now: number): string | undefined {
    for (const pod of this.records.all()) {
      if (podStatus(pod, now) === "GONE" || pod.terminatedAt !== undefined) continue;
      if (pod.mounts.network?.some((m) => m.volumeId === volumeId)) return pod.id;
    }
    return undefined;
  }

  /** A pod of this account that still exists (terminated ones read until termination completes). */
  find(accountId: string, id: string, now: number): PodRecord {
    const pod = this.records.get(id);
    if (!pod || pod.accountId !== accountId || podStatus(pod, now) === "GONE") throw notFound("pod", id);
    settle(pod, now);
    return pod;
  }

  /** A pod the caller may change: cluster members are managed through their cluster (409). */
  mutable(accountId: string, id: string, now: number): PodRecord {
    const pod = this.find(accountId, id, now);
    if (pod.cluster) {
      throw conflict(`Pod ${pod.id} is a member of cluster ${pod.cluster.id}; manage it through /v2/clusters/${pod.cluster.id}`);
    }
    return pod;
  }

  /** For the control plane, which acts across accounts. */
  any(id: string, now: number): PodRecord | undefined {
    const pod = this.records.get(id);
    if (!pod || podStatus(pod, now) === "GONE") return undefined;
    settle(pod, now);
    return pod;
  }

  /** The account's pods that still exist, settled; cluster members only when asked for. */
  list(accountId: string, now: number, includeCluster: boolean): PodRecord[] {
    const out: PodRecord[] = [];
    for (const pod of this.records.all()) {
      if (pod.accountId !== accountId || (pod.cluster && !includeCluster)) continue;
      if (podStatus(pod, now) === "GONE") continue;
      settle(pod, now);
      out.push(pod);
    }
    return out;
  }

  /** Every pod that still exists, of every account (control plane state). */
  live(now: number): PodRecord[] {
    return this.records.all().filter((p) => podStatus(p, now) !== "GONE");
  }

  // ---- capacity and runs -----------------------------------------------------------------------

  private release(pod: PodRecord): void {
    if (!pod.reserved) return;
    const hold = holdOf(pod);
    if (hold) this.world.capacity.release(hold);
    pod.reserved = false;
  }

  private reserve(pod: PodRecord): boolean {
    if (pod.reserved) return true;
    const hold = holdOf(pod);
    pod.reserved = hold ? this.world.capacity.reserve(hold) : true;
    return pod.reserved;
  }

  private stages(fromScratch: boolean) {
    const t = this.world.timings;
    return { provisioningMs: fromScratch ? t.podProvisioningMs : 0, startingMs: t.podStartingMs, logIntervalMs: t.logIntervalMs };
  }

  /** Starts a run of the container; global networking takes effect here (decisions: PATCH). */
  private startRun(pod: PodRecord, now: number, fromScratch: boolean, failStart = false): void {
    const fail = failStart || pod.failNextStart;
    pod.failNextStart = false;
    newRun(pod, now, this.stages(fromScratch), fail);
    pod.globalIp = pod.globalNetworking && globalNetworkingRefusalOf(this.world.catalog, pod) === null ? this.globalIpFor(pod, now) : null;
  }

  private globalIpFor(pod: PodRecord, now: number): string {
    const h = hash32("gn", pod.id, now);
    return `10.${200 + (h % 50)}.${(h >>> 8) & 255}.${1 + ((h >>> 16) % 250)}`;
  }

  private terminate(pod: PodRecord, now: number): void {
    endRun(pod, "terminate", now);
    this.release(pod);
    pod.terminatedAt = now;
    pod.goneAt = now + this.world.timings.podStoppingMs;
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  /** A new pod on the machine the plan chose, holding its GPUs (or vCPUs) from now on. */
  create(account: AccountRecord, name: string, plan: CreatePlan, now: number): PodRecord {
    const { deployment, placement } = plan;
    const pod: PodRecord = {
      id: randomId(14),
      accountId: account.id,
      name,
      image: deployment.image,
      args: deployment.args,
      disk: deployment.disk,
      env: plan.env,
      injected: plan.injected,
      ports: deployment.ports,
      registry: deployment.registry,
      mounts: plan.mounts,
      gpu: placement.gpu,
      cpu: placement.cpu,
      cloud: plan.cloud,
      dataCenterId: placement.dataCenterId,
      hostId: placement.hostId,
      cudaVersion: placement.cudaVersion,
      sshEnabled: deployment.startSsh && plan.env.PUBLIC_KEY !== undefined,
      globalNetworking: plan.globalNetworking,
      globalIp: null,
      locked: false,
      costPerHour: placement.cost,
      reserved: false,
      createdAt: now,
      runs: [],
      failNextStart: false,
    };
    this.reserve(pod);
    this.startRun(pod, now, true, this.world.takeFailNext("pod"));
    this.records.add(pod);
    return pod;
  }

  /** Applies a checked PATCH (rules.ts); a container change restarts a running pod (decisions). */
  update(pod: PodRecord, body: UpdatePodRequest, template: TemplateRecord | undefined, mounts: Mounts, now: number): void {
    const status = podStatus(pod, now);
    const before = { image: pod.image, args: pod.args, disk: pod.disk, env: pod.env, ports: pod.ports, registry: pod.registry, mounts: pod.mounts };
    const hasCommand = body.args !== undefined || body.cmd !== undefined || body.entrypoint !== undefined;
    const next = {
      image: body.image ?? template?.image ?? pod.image,
      args: hasCommand ? (storedArgs(body).args ?? "") : (template?.args ?? pod.args),
      disk: body.disk ?? template?.disk ?? pod.disk,
      ports: body.ports ?? template?.ports ?? pod.ports,
      registry: body.registry !== undefined ? body.registry : template ? template.registry : pod.registry,
      env: pod.env,
      mounts,
    };
    if (body.env !== undefined || template) {
      // decisions: env sent in a PATCH replaces the whole map (a template's env merged under it);
      // what startSsh/startJupyter injected stays unless the new map sets it.
      const replaced: Record<string, string> = { ...(template?.env ?? {}), ...(body.env ?? {}) };
      for (const [key, value] of Object.entries(pod.injected)) if (!(key in replaced)) replaced[key] = value;
      next.env = replaced;
    }
    Object.assign(pod, next);
    if (body.name !== undefined) pod.name = body.name;
    if (body.locked !== undefined) pod.locked = body.locked;
    if (body.globalNetworking !== undefined) pod.globalNetworking = body.globalNetworking;

    const containerChanged = (Object.keys(before) as Array<keyof typeof before>).some((k) => !sameJson(before[k], next[k]));
    if (containerChanged && (status === "RUNNING" || status === "STARTING")) {
      // decisions: a container change restarts a running pod (back to STARTING, then RUNNING).
      endRun(pod, "restart", now, "configuration changed");
      this.startRun(pod, now, false);
    }
  }

  /** POST /v2/pods/{id}/action: valid transitions only (409), locked pods neither stop nor restart. */
  act(pod: PodRecord, action: PodActionName, now: number): void {
    const status = podStatus(pod, now);
    if (!podActions(status).includes(action)) {
      throw conflict(`Cannot ${action} pod ${pod.id}: it is ${status} (allowed: ${podActions(status).join(", ") || "none"})`);
    }
    if (pod.locked && (action === "stop" || action === "restart")) {
      throw conflict(`Pod ${pod.id} is locked; unlock it (PATCH {"locked": false}) before you ${action} it`);
    }
    switch (action) {
      case "terminate":
        this.terminate(pod, now);
        break;
      case "stop":
        // decisions: stop goes straight to EXITED and releases the GPUs; the disk is kept.
        endRun(pod, "stop", now);
        this.release(pod);
        break;
      case "restart":
        endRun(pod, "restart", now, "restart requested");
        this.startRun(pod, now, false);
        break;
      case "start":
        // decisions: start resumes on the same host, so it needs that machine's GPUs back.
        if (!this.reserve(pod)) {
          throw badRequest(
            `Machine ${pod.hostId} in ${pod.dataCenterId} no longer has the free ${pod.gpu ? `GPUs (${pod.gpu.count})` : "vCPUs"} this pod needs; try again later or create a new pod`,
          );
        }
        this.startRun(pod, now, false);
        break;
    }
  }

  /** DELETE /v2/pods/{id}: a pod already terminating is not found. */
  remove(pod: PodRecord, now: number): void {
    if (pod.terminatedAt !== undefined) throw notFound("pod", pod.id);
    this.terminate(pod, now);
  }

  // ---- control-plane events (409 when the pod is not in the state the event needs) -------------

  /** The container's main process exits: RUNNING → EXITED. */
  exit(pod: PodRecord, now: number): void {
    const status = podStatus(pod, now);
    if (status !== "RUNNING") throw conflict(`Pod ${pod.id} is ${status}, not RUNNING`);
    endRun(pod, "exit", now);
    this.release(pod);
  }

  /** The container crashes: RUNNING or STARTING → ERROR (the pod keeps its host). */
  error(pod: PodRecord, now: number, message?: string): void {
    const status = podStatus(pod, now);
    if (status !== "RUNNING" && status !== "STARTING") throw conflict(`Pod ${pod.id} is ${status}, not RUNNING or STARTING`);
    endRun(pod, "error", now, message);
  }

  /** The ongoing start fails when it would have become RUNNING; otherwise the next one does. */
  failStart(pod: PodRecord, now: number): void {
    const status = podStatus(pod, now);
    const run = pod.runs[pod.runs.length - 1];
    if ((status === "PROVISIONING" || status === "STARTING") && !run.end) run.failStart = true;
    else pod.failNextStart = true;
  }
}
