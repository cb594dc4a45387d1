/**
 * Pods: create, read, list, PATCH, actions and delete. Rules are cited from the v2 document
 * ("v2") and the contract decisions ("decisions"). Template expansion and placement live in
 * pod-placement.ts; status and the rest of the derived view in pod-state.ts.
 */
import {
  CreatePodRequest,
  MAX_BODY_BYTES,
  PodActionRequest,
  UpdatePodRequest,
  createPodCrossFieldViolations,
  globalNetworkingRefusal,
  storedArgs,
  templateUseViolation,
  updatePodCrossFieldViolations,
  type Mounts,
  type PodActionName,
} from "../../contract";
import type { Fixture, PodFixture } from "../fixture";
import { ApiError, badRequest, conflict, json, noContent, notFound, unprocessable, type Reply } from "../http";
import { generatedPassword, hash32, randomId } from "../ids";
import type { LogSubject } from "../logs/stream";
import type { ResourceModule, World } from "../module";
import { QueryReader } from "../query";
import { route, type Operation, type Route } from "../router";
import {
  endRun,
  newRun,
  podActions,
  podRunLogs,
  podStatus,
  podView,
  settle,
  type PodRecord,
} from "./pod-state";
import { candidateDataCenters, expand, placeCpu, placeGpu, round4 } from "./pod-placement";

const DEFAULT_GLOBAL_MOUNT_PATH = "/mnt/global";

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export class Pods implements ResourceModule {
  readonly name = "pods";
  private pods = new Map<string, PodRecord>();

  constructor(private readonly world: World) {}

  // ---- state ---------------------------------------------------------------------------------

  reset(fixture: Fixture, now: number): void {
    this.pods = new Map();
    for (const seed of fixture.pods) this.pods.set(seed.id, this.fromFixture(seed, now));
  }

  snapshot(): PodRecord[] {
    return [...this.pods.values()];
  }

  restore(slice: unknown): void {
    this.pods = new Map((slice as PodRecord[]).map((p) => [p.id, p]));
  }

  count(): number {
    return this.pods.size;
  }

  /** Fixture pods have been running (or stopped) for a while when the emulator starts. */
  private fromFixture(seed: PodFixture, now: number): PodRecord {
    const catalog = this.world.catalog;
    const gpuType = seed.gpu ? catalog.gpuType(seed.gpu.id) : undefined;
    const flavor = seed.cpu ? catalog.cpuFlavor(seed.cpu.id) : undefined;
    const machine = seed.gpu
      ? catalog.placeGpu({ gpuTypeId: seed.gpu.id, count: seed.gpu.count, cloud: seed.cloud, dataCenterIds: [seed.dataCenterId], cuda: {} })
      : undefined;
    const running = seed.status === "RUNNING";
    if (machine && running) catalog.reserveGpus(machine.id, seed.gpu!.count);
    if (seed.cpu && running) catalog.reserveCpu(seed.dataCenterId, seed.cpu.id, seed.cpu.vcpuCount);
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
      reserved: running,
      createdAt: startedAt - 60000,
      cluster: seed.cluster,
      runs: [],
      failNextStart: false,
    };
    if (seed.gpu && gpuType) {
      const count = seed.gpu.count;
      pod.gpu = { id: gpuType.id, count, vcpuCount: (machine?.vcpuPerGpu ?? 8) * count, memory: (machine?.ramPerGpu ?? 32) * count };
      pod.costPerHour = round4(gpuType.price[seed.cloud === "SECURE" ? "secure" : "community"] * count);
    } else if (seed.cpu && flavor) {
      pod.cpu = { id: flavor.id, vcpuCount: seed.cpu.vcpuCount, memory: Math.floor(seed.cpu.vcpuCount * flavor.ramGbPerVcpu) };
      pod.costPerHour = round4(flavor.price.securePerVcpu * seed.cpu.vcpuCount);
    }
    newRun(pod, startedAt - 20000, { provisioningMs: 12000, startingMs: 8000, logIntervalMs: this.world.timings.logIntervalMs }, false);
    if (!running) endRun(pod, "stop", startedAt + 600000);
    return pod;
  }

  /** Purges pods whose termination completed; true when something changed. */
  sweep(now: number): boolean {
    let changed = false;
    for (const [id, pod] of this.pods) {
      if (podStatus(pod, now) === "GONE") {
        this.pods.delete(id);
        changed = true;
      }
    }
    return changed;
  }

  /** Id of a live pod of the account that mounts this network volume. */
  podUsingVolume(volumeId: string, now: number): string | undefined {
    for (const pod of this.pods.values()) {
      if (podStatus(pod, now) === "GONE" || pod.terminatedAt !== undefined) continue;
      if (pod.mounts.network?.some((m) => m.volumeId === volumeId)) return pod.id;
    }
    return undefined;
  }

  /** A pod of this account that still exists (terminated ones read until termination completes). */
  find(accountId: string, id: string, now: number): PodRecord {
    const pod = this.pods.get(id);
    if (!pod || pod.accountId !== accountId || podStatus(pod, now) === "GONE") throw notFound("pod", id);
    settle(pod, now);
    return pod;
  }

  /** For the control plane, which acts across accounts. */
  any(id: string, now: number): PodRecord | undefined {
    const pod = this.pods.get(id);
    if (!pod || podStatus(pod, now) === "GONE") return undefined;
    settle(pod, now);
    return pod;
  }

  views(now: number): Array<Record<string, unknown>> {
    return [...this.pods.values()]
      .filter((p) => podStatus(p, now) !== "GONE")
      .map((p) => ({ accountId: p.accountId, ...podView(p, now) }));
  }

  // ---- lifecycle helpers -----------------------------------------------------------------------

  private stages(fromScratch: boolean) {
    const t = this.world.timings;
    return { provisioningMs: fromScratch ? t.podProvisioningMs : 0, startingMs: t.podStartingMs, logIntervalMs: t.logIntervalMs };
  }

  /** Starts a run of the container; global networking takes effect here (decisions: PATCH). */
  private startRun(pod: PodRecord, now: number, fromScratch: boolean, failStart = false): void {
    const fail = failStart || pod.failNextStart;
    pod.failNextStart = false;
    newRun(pod, now, this.stages(fromScratch), fail);
    pod.globalIp = pod.globalNetworking && this.globalNetworkingEligible(pod) === null ? this.globalIpFor(pod, now) : null;
  }

  private globalIpFor(pod: PodRecord, now: number): string {
    const h = hash32("gn", pod.id, now);
    return `10.${200 + (h % 50)}.${(h >>> 8) & 255}.${1 + ((h >>> 16) % 250)}`;
  }

  /** Null when the pod may use global networking; otherwise why not (v2: globalNetworking). */
  private globalNetworkingEligible(pod: { gpu?: { id: string }; dataCenterId: string }): string | null {
    const gpuType = pod.gpu ? this.world.catalog.gpuType(pod.gpu.id) : undefined;
    // A GPU type the catalog does not know is refused: the service cannot vouch for it.
    const why = globalNetworkingRefusal({
      gpu: pod.gpu !== undefined,
      manufacturer: gpuType?.manufacturer ?? "UNKNOWN",
      dataCenterGlobalNetwork: this.world.catalog.dataCenter(pod.dataCenterId)?.globalNetwork ?? false,
    });
    return why ? `Global networking ${why} (data center ${pod.dataCenterId})` : null;
  }

  private release(pod: PodRecord): void {
    if (!pod.reserved) return;
    if (pod.gpu) this.world.catalog.releaseGpus(pod.hostId, pod.gpu.count);
    if (pod.cpu) this.world.catalog.releaseCpu(pod.dataCenterId, pod.cpu.id, pod.cpu.vcpuCount);
    pod.reserved = false;
  }

  private reserve(pod: PodRecord): boolean {
    if (pod.reserved) return true;
    const ok = pod.gpu
      ? this.world.catalog.reserveGpus(pod.hostId, pod.gpu.count)
      : pod.cpu
        ? this.world.catalog.reserveCpu(pod.dataCenterId, pod.cpu.id, pod.cpu.vcpuCount)
        : true;
    pod.reserved = ok;
    return ok;
  }

  private terminate(pod: PodRecord, now: number): void {
    endRun(pod, "terminate", now);
    this.release(pod);
    pod.terminatedAt = now;
    pod.goneAt = now + this.world.timings.podStoppingMs;
  }

  // ---- create ----------------------------------------------------------------------------------

  private create(op: Operation<CreatePodRequest>): Reply {
    const { body, account, now } = op;
    const catalog = this.world.catalog;

    // Template rules 1 and 6: own or public, 404 otherwise; a serverless template is a 422.
    const template = body.templateId ? this.world.templates.resolve(account.id, body.templateId) : undefined;
    const wrongTemplate = template && templateUseViolation(template, "pod");
    if (wrongTemplate) throw unprocessable("The request does not match the contract", [wrongTemplate]);
    const deployment = expand(body, template);
    // Size rule: the expanded request must fit too (v2: 413 on body or expanded request).
    const expandedBytes = Buffer.byteLength(JSON.stringify({ ...body, ...deployment }));
    if (template && expandedBytes > MAX_BODY_BYTES) {
      throw new ApiError(
        413,
        `The request expanded with template ${template.id} is ${expandedBytes} bytes, over the ${MAX_BODY_BYTES}-byte limit; reduce env vars or command values in the request or template`,
      );
    }

    const candidates = candidateDataCenters(catalog, body.dataCenterIds);
    const networkMount = deployment.mounts.network?.[0];
    const globalMount = deployment.mounts.global?.[0];
    let dataCenterIds = candidates;
    if (networkMount) {
      const volume = this.world.volumes.networkVolume(account.id, networkMount.volumeId);
      if (!volume) throw notFound("network volume", networkMount.volumeId);
      if (!candidates.includes(volume.dataCenter)) {
        throw badRequest(
          `Network volume ${volume.id} is in ${volume.dataCenter}, which is not among the requested data centers (${candidates.join(", ")}); a pod can mount it only in its own data center`,
        );
      }
      dataCenterIds = [volume.dataCenter];
    }
    if (globalMount && !this.world.volumes.globalVolume(account.id, globalMount.volumeId)) {
      throw notFound("global volume", globalMount.volumeId);
    }
    if (body.globalNetworking) {
      const gpuType = body.gpu ? catalog.gpuType(body.gpu.id) : undefined;
      const why = globalNetworkingRefusal({ gpu: body.gpu !== undefined, manufacturer: gpuType?.manufacturer });
      if (why) throw badRequest(`Global networking ${why}`);
      const eligible = dataCenterIds.filter((id) => catalog.dataCenter(id)?.globalNetwork);
      if (eligible.length === 0) {
        const offered = catalog.allDataCenters().filter((d) => d.globalNetwork).map((d) => d.id);
        throw badRequest(
          `Global networking is not available in ${dataCenterIds.join(", ")}; data centers with global networking: ${offered.join(", ")}`,
        );
      }
      dataCenterIds = eligible;
    }

    const placed = body.gpu ? placeGpu(catalog, body, deployment, account, dataCenterIds) : placeCpu(catalog, body, account, dataCenterIds);

    // Injection: PUBLIC_KEY from registered keys (nothing without keys), a generated
    // JUPYTER_PASSWORD; neither overrides a value the request or template set.
    const injected: Record<string, string> = {};
    if (deployment.startSsh && account.sshKeys.length > 0 && deployment.env.PUBLIC_KEY === undefined) {
      injected.PUBLIC_KEY = account.sshKeys.join("\n");
    }
    if (deployment.startJupyter && deployment.env.JUPYTER_PASSWORD === undefined) {
      injected.JUPYTER_PASSWORD = generatedPassword();
    }
    const env = { ...deployment.env, ...injected };
    const mounts: Mounts = { ...deployment.mounts };
    if (mounts.global) mounts.global = mounts.global.map((m) => ({ volumeId: m.volumeId, path: m.path ?? DEFAULT_GLOBAL_MOUNT_PATH }));

    const pod: PodRecord = {
      id: randomId(14),
      accountId: account.id,
      name: body.name,
      image: deployment.image,
      args: deployment.args,
      disk: deployment.disk,
      env,
      injected,
      ports: deployment.ports,
      registry: deployment.registry,
      mounts,
      gpu: placed.gpu,
      cpu: placed.cpu,
      cloud: body.cloud ?? "SECURE",
      dataCenterId: placed.dataCenterId,
      hostId: placed.hostId,
      cudaVersion: placed.cudaVersion,
      sshEnabled: deployment.startSsh && env.PUBLIC_KEY !== undefined,
      globalNetworking: body.globalNetworking ?? false,
      globalIp: null,
      locked: false,
      costPerHour: placed.cost,
      reserved: true,
      createdAt: now,
      runs: [],
      failNextStart: false,
    };
    this.startRun(pod, now, true, this.world.takeFailNext("pod"));
    this.pods.set(pod.id, pod);
    return json(201, podView(pod, now));
  }

  // ---- update ----------------------------------------------------------------------------------

  private mutable(op: Operation<unknown>): PodRecord {
    const pod = this.find(op.account.id, op.params.id, op.now);
    if (pod.cluster) {
      throw conflict(`Pod ${pod.id} is a member of cluster ${pod.cluster.id}; manage it through /v2/clusters/${pod.cluster.id}`);
    }
    return pod;
  }

  private update(op: Operation<UpdatePodRequest>): Reply {
    const { body, now } = op;
    const pod = this.mutable(op);
    const status = podStatus(pod, now);
    if (status === "TERMINATED") throw conflict(`Pod ${pod.id} is terminated`);

    const template = body.templateId ? this.world.templates.resolve(op.account.id, body.templateId) : undefined;
    const wrongTemplate = template && templateUseViolation(template, "pod");
    if (wrongTemplate) throw unprocessable("The request does not match the contract", [wrongTemplate]);
    const mounts = this.updatedMounts(pod, body.mounts);
    if (body.globalNetworking === true) {
      const why = this.globalNetworkingEligible(pod);
      if (why) throw badRequest(why);
    }

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
    return json(200, podView(pod, now));
  }

  /** v2 mount update semantics: kinds fixed at create, volume ids immutable, paths changeable. */
  private updatedMounts(pod: PodRecord, requested: Mounts | undefined): Mounts {
    const stored = pod.mounts;
    if (!requested) return stored;
    const next: Mounts = structuredClone(stored);
    const problems: string[] = [];
    if (requested.persistent) {
      if (!stored.persistent) problems.push("mounts.persistent: the pod was created without a persistent mount; mount kinds are fixed at create");
      else if (requested.persistent.size !== stored.persistent.size) problems.push(`mounts.persistent.size: cannot change after create (${stored.persistent.size} GB)`);
      else next.persistent = { size: stored.persistent.size, path: requested.persistent.path };
    }
    for (const kind of ["network", "global"] as const) {
      const entry = requested[kind]?.[0];
      if (!entry) continue;
      const current = stored[kind]?.[0];
      if (!current) {
        problems.push(`mounts.${kind}: the pod was created without a ${kind} mount; mount kinds are fixed at create`);
      } else if (entry.volumeId !== current.volumeId) {
        problems.push(`mounts.${kind}[0].volumeId: is fixed at create ("${current.volumeId}")`);
      } else {
        next[kind] = [{ volumeId: current.volumeId, path: entry.path ?? current.path ?? DEFAULT_GLOBAL_MOUNT_PATH }];
      }
    }
    if (problems.length > 0) throw badRequest(problems.join("; "), problems);
    return next;
  }

  // ---- actions ---------------------------------------------------------------------------------

  private act(op: Operation<{ action: PodActionName }>): Reply {
    const { now } = op;
    const action = op.body.action;
    const pod = this.mutable(op);
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
        return noContent();
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
    return json(200, podView(pod, now));
  }

  private remove(op: Operation<unknown>): Reply {
    const pod = this.mutable(op);
    if (pod.terminatedAt !== undefined) throw notFound("pod", pod.id);
    this.terminate(pod, op.now);
    return noContent();
  }

  // ---- control plane ---------------------------------------------------------------------------

  /** The container's main process exits: RUNNING → EXITED. */
  exit(id: string, now: number): PodRecord | string {
    const pod = this.any(id, now);
    if (!pod) return `No pod "${id}"`;
    if (podStatus(pod, now) !== "RUNNING") return `Pod ${id} is ${podStatus(pod, now)}, not RUNNING`;
    endRun(pod, "exit", now);
    this.release(pod);
    return pod;
  }

  /** The container crashes: RUNNING or STARTING → ERROR (the pod keeps its host). */
  error(id: string, now: number, message?: string): PodRecord | string {
    const pod = this.any(id, now);
    if (!pod) return `No pod "${id}"`;
    const status = podStatus(pod, now);
    if (status !== "RUNNING" && status !== "STARTING") return `Pod ${id} is ${status}, not RUNNING or STARTING`;
    endRun(pod, "error", now, message);
    return pod;
  }

  /** The ongoing start fails when it would have become RUNNING; otherwise the next one does. */
  failStart(id: string, now: number): PodRecord | string {
    const pod = this.any(id, now);
    if (!pod) return `No pod "${id}"`;
    const status = podStatus(pod, now);
    const run = pod.runs[pod.runs.length - 1];
    if ((status === "PROVISIONING" || status === "STARTING") && !run.end) run.failStart = true;
    else pod.failNextStart = true;
    return pod;
  }

  // ---- logs ------------------------------------------------------------------------------------

  logSubject(accountId: string, id: string, now: number): LogSubject {
    const pod = this.find(accountId, id, now);
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

  // ---- routes ----------------------------------------------------------------------------------

  routes(): Array<Route<unknown>> {
    return [
      route({
        method: "GET",
        path: "/v2/pods",
        family: "pods",
        handle: (op) => {
          const q = new QueryReader(op.query);
          const includeCluster = q.boolean("includeClusterPods") ?? false;
          q.done();
          const pods: Array<Record<string, unknown>> = [];
          for (const pod of this.pods.values()) {
            if (pod.accountId !== op.account.id || (pod.cluster && !includeCluster)) continue;
            if (podStatus(pod, op.now) === "GONE") continue;
            settle(pod, op.now);
            pods.push(podView(pod, op.now));
          }
          return json(200, { pods });
        },
      }),
      route({
        method: "POST",
        path: "/v2/pods",
        family: "pods",
        body: CreatePodRequest,
        crossField: (body) => createPodCrossFieldViolations(body),
        handle: (op) => this.create(op),
      }),
      route({
        method: "GET",
        path: "/v2/pods/:id",
        family: "pods",
        handle: (op) => json(200, podView(this.find(op.account.id, op.params.id, op.now), op.now)),
      }),
      route({
        method: "PATCH",
        path: "/v2/pods/:id",
        family: "pods",
        body: UpdatePodRequest,
        crossField: (body) => updatePodCrossFieldViolations(body),
        handle: (op) => this.update(op),
      }),
      route({
        method: "POST",
        path: "/v2/pods/:id/action",
        family: "pods",
        body: PodActionRequest,
        handle: (op) => this.act(op),
      }),
      route({
        method: "DELETE",
        path: "/v2/pods/:id",
        family: "pods",
        handle: (op) => this.remove(op),
      }),
    ];
  }
}
