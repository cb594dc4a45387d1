/**
 * Pods as stored, and the transitions applied to them: create, PATCH, actions, delete and the
 * control plane's events. Rules are cited from the v2 document ("v2") and the contract
 * decisions ("decisions"); the status and the run bookkeeping are the lifecycle's
 * (lifecycle.ts); the checks that need the world's data are in rules.ts.
 */
import { storedArgs, type Mounts, type PodActionName, type UpdatePodRequest } from "../../contract";
import { cpuPodCostPerHour, gpuPodCostPerHour } from "../../contract/estimate";
import type { AccountRecord } from "../accounts/store";
import type { Meter } from "../billing/meter";
import type { Catalog } from "../catalog/store";
import type { Fixture, PodFixture } from "../fixture";
import { badRequest, conflict, notFound } from "../http";
import { hash32, randomId } from "../ids";
import type { LogSubject } from "../logs/stream";
import type { Timings } from "../options";
import type { Capacity, Hold } from "../placement/capacity";
import { cpuMemoryGb } from "../placement/rules";
import { TableModule } from "../records";
import type { TemplateRecord } from "../templates/store";
import { currentRun, endRun, newRun, podActions, podActive, podEnded, podStatus, settle } from "./lifecycle";
import { podRunLogs } from "./logs";
import type { ClusterMembership, GpuUtilizationSettings, PodRecord, RunEnd, ServiceSettings } from "./record";
import type { CreatePlan } from "./rules";
import { podView, type PodView, type PortMappings } from "./view";

/** What the pod store needs of the service host (emulator/services): the ports it publishes, and word of what changes them. */
export interface PodServiceHost extends PortMappings {
  /** Settings the control plane queued for the next created pods (`PUT /_emulator/services/next`), one pod's worth. */
  takeNext(now: number): ServiceSettings | undefined;
  /** The pod's current run ended: its listeners close now rather than at the host's next sweep. */
  runEnded(pod: PodRecord): void;
  /** The pod's service settings changed: connections opened under the old ones are closed. */
  settingsChanged(pod: PodRecord): void;
}

/** What the pod store uses of the world: the catalog and capacity it places on, the stage timings, the service host. */
export interface PodsWorld {
  readonly billing: Meter;
  readonly catalog: Catalog;
  readonly capacity: Capacity;
  readonly timings: Timings;
  readonly serviceHost: PodServiceHost;
  takeFailNext(kind: "pod"): boolean;
}

/** What the pod holds on its machine (or CPU pool) while it runs. */
function holdOf(pod: PodRecord): Hold | undefined {
  if (pod.gpu) return { kind: "gpu", machineId: pod.hostId, gpus: pod.gpu.count };
  if (pod.cpu) return { kind: "cpu", dataCenterId: pod.dataCenterId, flavorId: pod.cpu.id, vcpus: pod.cpu.vcpuCount };
  return undefined;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A pod's use on the billing meter. */
const meterKey = (pod: PodRecord) => `pod:${pod.id}`;

export class Pods extends TableModule<PodRecord> {
  constructor(private readonly world: PodsWorld) {
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
      pod.cpu = { id: flavor.id, vcpuCount: seed.cpu.vcpuCount, memory: cpuMemoryGb(flavor, seed.cpu.vcpuCount) };
      pod.costPerHour = cpuPodCostPerHour(flavor, seed.cpu.vcpuCount);
    }
    // A seeded GPU pod without a machine of its own (none matched) holds nothing.
    if (running && (machine || seed.cpu)) this.reserve(pod, startedAt - 20000);
    const { logIntervalMs, serviceStartMs } = this.world.timings;
    newRun(pod, startedAt - 20000, { provisioningMs: 12000, startingMs: 8000, logIntervalMs, serviceStartMs }, false);
    if (!running) endRun(pod, "stop", startedAt + 600000);
    return pod;
  }

  /** State files from before billing hold no meter: a pod holding its compute bills from its current run's start. */
  override restore(slice: unknown, fixture: Fixture, now: number): void {
    super.restore(slice, fixture, now);
    for (const pod of this.records.all()) if (pod.reserved) this.bill(pod, currentRun(pod)?.requestedAt ?? pod.createdAt);
  }

  /** The records without their service and GPU utilisation settings, which live in memory only (control plane). */
  override snapshot(): PodRecord[] {
    return this.records.all().map(({ service: _inMemoryOnly, gpuUtilization: _alsoInMemoryOnly, ...saved }) => saved);
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
      if (podEnded(podStatus(pod, now))) continue;
      if (pod.mounts.network?.some((m) => m.volumeId === volumeId)) return pod.id;
    }
    return undefined;
  }

  /** Ids of the account's live pods that pull with this registry credential (a terminated pod pulls nothing again). */
  podsUsingRegistry(accountId: string, registryId: string, now: number): string[] {
    return this.records
      .all()
      .filter((pod) => pod.accountId === accountId && pod.registry === registryId && !podEnded(podStatus(pod, now)))
      .map((pod) => pod.id);
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

  /** The pod's wire form, its running ports published by the service host. */
  view(pod: PodRecord, now: number): PodView {
    return podView(pod, now, this.world.serviceHost);
  }

  /** What the pod's log stream follows; pods stream in STARTING and RUNNING (409 codes as sandboxes'). */
  logSubject(pod: PodRecord): LogSubject {
    return {
      runs: () => podRunLogs(pod),
      unavailable: (at) => {
        settle(pod, at);
        const status = podStatus(pod, at);
        if (podEnded(status)) return { code: "sandbox_terminated", detail: `Pod ${pod.id} is terminated` };
        if (status === "PROVISIONING") return { code: "sandbox_starting", detail: `Pod ${pod.id} is PROVISIONING; its container does not exist yet. Retry shortly.` };
        if (podActive(status)) return null;
        return { code: "container_exited", detail: `Pod ${pod.id} is ${status}; its container is not running` };
      },
    };
  }

  // ---- capacity and runs -----------------------------------------------------------------------

  /** Lets the pod's GPUs (or vCPUs) go: from `now` it no longer bills for them. */
  private release(pod: PodRecord, now: number): void {
    if (!pod.reserved) return;
    const hold = holdOf(pod);
    if (hold) this.world.capacity.release(hold);
    pod.reserved = false;
    this.world.billing.stop(meterKey(pod), now);
  }

  /** Holds the pod's GPUs (or vCPUs) if they are free: from `now` it bills for them (an ERROR pod keeps them, and bills). */
  private reserve(pod: PodRecord, now: number): boolean {
    if (pod.reserved) return true;
    const hold = holdOf(pod);
    pod.reserved = hold ? this.world.capacity.reserve(hold) : true;
    if (pod.reserved) this.bill(pod, now);
    return pod.reserved;
  }

  /** The pod's use on the meter while it holds its compute, at its rate; a cluster member's bills its cluster. */
  private bill(pod: PodRecord, from: number): void {
    this.world.billing.start(
      {
        key: meterKey(pod),
        accountId: pod.accountId,
        route: pod.cluster ? "clusters" : "pods",
        resourceId: pod.cluster?.id ?? pod.id,
        component: pod.gpu ? "gpuAmount" : "cpuAmount",
        ratePerHour: pod.costPerHour,
      },
      from,
    );
  }

  private stages(fromScratch: boolean) {
    const t = this.world.timings;
    return { provisioningMs: fromScratch ? t.podProvisioningMs : 0, startingMs: t.podStartingMs, logIntervalMs: t.logIntervalMs, serviceStartMs: t.serviceStartMs };
  }

  /** Ends the current run (lifecycle.ts); the services of the run stop answering at once. */
  private end(pod: PodRecord, end: RunEnd, now: number, note?: string): void {
    endRun(pod, end, now, note);
    this.world.serviceHost.runEnded(pod);
  }

  /** Starts a run of the container; global networking takes effect here (decisions: PATCH). */
  private startRun(pod: PodRecord, now: number, fromScratch: boolean, failStart = false): void {
    const fail = failStart || pod.failNextStart;
    pod.failNextStart = false;
    newRun(pod, now, this.stages(fromScratch), fail);
    pod.globalIp = pod.globalNetworking && this.world.catalog.globalNetworkingRefusal(pod) === null ? this.globalIpFor(pod, now) : null;
  }

  private globalIpFor(pod: PodRecord, now: number): string {
    const h = hash32("gn", pod.id, now);
    return `10.${200 + (h % 50)}.${(h >>> 8) & 255}.${1 + ((h >>> 16) % 250)}`;
  }

  private terminate(pod: PodRecord, now: number): void {
    this.end(pod, "terminate", now);
    this.release(pod, now);
    pod.terminatedAt = now;
    pod.goneAt = now + this.world.timings.podStoppingMs;
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  /** A new pod on the machine the plan chose, holding its GPUs (or vCPUs) from now on; the control plane's fail-next switch applies. */
  create(account: AccountRecord, name: string, plan: CreatePlan, now: number): PodRecord {
    return this.add(account, name, plan, now, this.world.takeFailNext("pod"));
  }

  /**
   * A cluster's member: a pod like any other (billing, logs, lifecycle, control-plane events),
   * with its place in the cluster. Its cluster decides whether it fails as it starts (the
   * cluster consumes the fail-next switch once, for its last member).
   */
  createMember(account: AccountRecord, name: string, plan: CreatePlan, membership: ClusterMembership, failStart: boolean, now: number): PodRecord {
    return this.add(account, name, plan, now, failStart, membership);
  }

  private add(account: AccountRecord, name: string, plan: CreatePlan, now: number, failStart: boolean, cluster?: ClusterMembership): PodRecord {
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
      ...(cluster ? { cluster } : {}),
      runs: [],
      failNextStart: false,
    };
    // Cluster members count one each, in creation order.
    const service = this.world.serviceHost.takeNext(now);
    if (service) pod.service = service;
    this.reserve(pod, now);
    this.startRun(pod, now, true, failStart);
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
      this.end(pod, "restart", now, "configuration changed");
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
        this.end(pod, "stop", now);
        this.release(pod, now);
        break;
      case "restart":
        this.end(pod, "restart", now, "restart requested");
        this.startRun(pod, now, false);
        break;
      case "start":
        // decisions: start resumes on the same host, so it needs that machine's GPUs back.
        if (!this.reserve(pod, now)) {
          throw badRequest(
            `Machine ${pod.hostId} in ${pod.dataCenterId} no longer has the free ${pod.gpu ? `GPUs (${pod.gpu.count})` : "vCPUs"} this pod needs; try again later or create a new pod`,
          );
        }
        this.startRun(pod, now, false);
        break;
    }
  }

  /** A member of a deleted cluster ends as a deleted pod does (TERMINATED, then gone), unless it already has. */
  endMember(pod: PodRecord, now: number): void {
    if (!podEnded(podStatus(pod, now))) this.terminate(pod, now);
  }

  /** DELETE /v2/pods/{id}: a pod already terminating is not found. */
  remove(pod: PodRecord, now: number): void {
    if (podEnded(podStatus(pod, now))) throw notFound("pod", pod.id);
    this.terminate(pod, now);
  }

  // ---- control-plane events (409 when the pod is not in the state the event needs) -------------

  /** The container's main process exits: RUNNING → EXITED. */
  exit(pod: PodRecord, now: number): void {
    const status = podStatus(pod, now);
    if (status !== "RUNNING") throw conflict(`Pod ${pod.id} is ${status}, not RUNNING`);
    this.end(pod, "exit", now);
    this.release(pod, now);
  }

  /** The container crashes: RUNNING or STARTING → ERROR (the pod keeps its host). */
  error(pod: PodRecord, now: number, message?: string): void {
    const status = podStatus(pod, now);
    if (status !== "RUNNING" && status !== "STARTING") throw conflict(`Pod ${pod.id} is ${status}, not RUNNING or STARTING`);
    this.end(pod, "error", now, message);
  }

  /** New service settings (control plane): they act from `settings.since` on, and connections open under the old ones close. */
  setServiceSettings(pod: PodRecord, settings: ServiceSettings): void {
    pod.service = settings;
    this.world.serviceHost.settingsChanged(pod);
  }

  /**
   * New GPU utilisation settings (control plane), or none (back to the pseudo-random values).
   * A pod without GPUs (a CPU pod) has nothing to set: 409, not a 400, since the body is valid
   * and it is the pod it is aimed at that cannot take it, as with an event in the wrong state.
   */
  setGpuUtilization(pod: PodRecord, settings: GpuUtilizationSettings | undefined): void {
    if (settings && !pod.gpu) throw conflict(`Pod ${pod.id} is a CPU pod: it has no GPUs whose utilisation could be set`);
    if (settings) pod.gpuUtilization = settings;
    else delete pod.gpuUtilization;
  }

  /** The ongoing start fails when it would have become RUNNING; otherwise the next one does. */
  failStart(pod: PodRecord, now: number): void {
    const status = podStatus(pod, now);
    const run = pod.runs[pod.runs.length - 1];
    if ((status === "PROVISIONING" || status === "STARTING") && !run.end) run.failStart = true;
    else pod.failNextStart = true;
  }
}
