/**
 * Serverless endpoints as stored: the settings an endpoint was created with, as PATCH changed
 * them since (settings.ts works them out; view.ts builds the answer from them on every read),
 * and its active workers (workers.ts: which run, since when, on which configuration version).
 */
import type { CreateEndpointRequest } from "../../contract";
import type { Meter } from "../billing/meter";
import type { Fixture } from "../fixture";
import type { Timings } from "../options";
import { TableModule } from "../records";
import { workerPlacement, type WorkerPlacementWorld } from "./placement";
import { CONFIGURATION, firstFleet, resized, restarted, type WorkerFleet, type WorkerSettings, type WorkerSlot } from "./workers";

export type EndpointType = CreateEndpointRequest["type"];
export type EndpointScaling = CreateEndpointRequest["scaling"];
export type Flashboot = NonNullable<CreateEndpointRequest["flashboot"]>;

/** A GPU endpoint's worker selection: pools minus excluded types, and its CUDA constraint (a set or a floor, never both). */
export interface EndpointGpu {
  pools: string[];
  excludedTypes: string[];
  count: number;
  allowedCudaVersions: string[];
  minCudaVersion: string | null;
}

/** One of a CPU endpoint's worker choices; `memory` (GB) follows from the flavor's RAM per vCPU. */
export interface EndpointCpu {
  id: string;
  vcpuCount: number;
  memory: number;
}

/** The container settings an endpoint's workers run with. */
export interface ContainerSettings {
  image: string;
  args: string;
  disk: number;
  env: Record<string, string>;
  ports: string[];
  registry: string | null;
}

/** What an endpoint is configured with (create, then PATCH). */
export interface EndpointSettings extends ContainerSettings {
  id: string;
  accountId: string;
  createdAt: number;
  name: string;
  /** Fixed at create, as is the compute family: exactly one of `gpu` and `cpu` is set. */
  type: EndpointType;
  gpu: EndpointGpu | null;
  cpu: EndpointCpu[] | null;
  /** The template the endpoint was created from, as answers show it; a PATCH's `templateId` is applied once and not recorded. */
  templateId?: string;
  /** `idleTimeout` is kept where it does not apply (queue endpoints on REQUEST_COUNT), so a later scaling change shows it again. */
  workers: { min: number; max: number; idleTimeout: number };
  scaling: EndpointScaling;
  dataCenterIds: string[];
  networkVolumes: string[];
  timeout: number;
  flashboot: Flashboot;
}

/** An endpoint with its workers. */
export interface EndpointRecord extends EndpointSettings {
  fleet: WorkerFleet;
  /** Set by the control plane; absent: workers are ready `readyMs` after they start. */
  workerSettings?: WorkerSettings;
}

/** What a PATCH may change: everything but identity, type and creation. */
export type EndpointChange = Partial<Omit<EndpointSettings, "id" | "accountId" | "createdAt" | "type" | "templateId">>;

/** What the endpoint store uses of the world: the timing of a worker's start; where workers run and the meter they bill on. */
export interface ServerlessWorld extends WorkerPlacementWorld {
  readonly timings: Timings;
  readonly billing: Meter;
}

/** A worker's use on the billing meter; every worker of an endpoint shares the prefix. */
const workersKey = (endpoint: EndpointRecord) => `worker:${endpoint.id}:`;
const workerKey = (endpoint: EndpointRecord, worker: WorkerSlot) => workersKey(endpoint) + worker.id;

/**
 * What one worker of the endpoint bills per hour: the catalog's serverless price of the GPU type
 * its workers run on (workerPlacement) × the GPUs per worker, or of its first CPU choice per vCPU
 * × its vCPUs. The estimate takes the dearest type the pools allow, so an actual may be lower.
 */
function workerRate(world: WorkerPlacementWorld, endpoint: EndpointRecord): { component: string; ratePerHour: number } {
  if (endpoint.gpu) {
    const typeId = workerPlacement(world, endpoint).gpuTypeId;
    const price = typeId === null ? undefined : world.catalog.gpuTypes.get(typeId)?.price.serverless;
    return { component: "gpuAmount", ratePerHour: (price ?? 0) * endpoint.gpu.count };
  }
  const choice = endpoint.cpu?.[0];
  const perVcpu = choice ? world.catalog.cpuFlavors.get(choice.id)?.price.serverlessPerVcpu : undefined;
  return { component: "cpuAmount", ratePerHour: (perVcpu ?? 0) * (choice?.vcpuCount ?? 0) };
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export class Serverless extends TableModule<EndpointRecord> {
  constructor(private readonly world: ServerlessWorld) {
    super("serverless endpoint");
  }

  /** State files written before workers were simulated hold none: the endpoint's minimum start then, ready at once. */
  override restore(slice: unknown, _fixture: Fixture, now: number): void {
    const saved = slice as Array<(EndpointSettings & { fleet?: WorkerFleet }) | SavedAnswer>;
    this.records.load(
      saved.map((entry) => {
        const settings: EndpointSettings & { fleet?: WorkerFleet } = "view" in entry ? fromSavedAnswer(entry) : entry;
        return { ...settings, fleet: settings.fleet ?? firstFleet(settings.id, settings.workers.min, settings.createdAt, 0) };
      }),
    );
    // State files from before billing hold no meter: workers bill from their start.
    for (const endpoint of this.records.all()) this.bill(endpoint, now);
  }

  /** Brings the meter in line with the endpoint's workers: each one bills from its start; a worker gone stops billing now. */
  private bill(endpoint: EndpointRecord, now: number): void {
    const meter = this.world.billing;
    meter.stopAllBut(workersKey(endpoint), new Set(endpoint.fleet.workers.map((w) => workerKey(endpoint, w))), now);
    const rate = workerRate(this.world, endpoint);
    for (const worker of endpoint.fleet.workers) {
      meter.start({ key: workerKey(endpoint, worker), accountId: endpoint.accountId, route: "serverless", resourceId: endpoint.id, ...rate }, worker.startedAt);
    }
  }

  /** The records without their worker settings, which live in memory only (control plane). */
  override snapshot(): EndpointRecord[] {
    return this.records.all().map(({ workerSettings: _inMemoryOnly, ...saved }) => saved);
  }

  find(accountId: string, id: string): EndpointRecord {
    return this.records.owned(accountId, id);
  }

  /** For the control plane, which acts across accounts. */
  any(id: string): EndpointRecord | undefined {
    return this.records.get(id);
  }

  /** A new endpoint, its `workers.min` workers starting now. */
  add(settings: EndpointSettings, now: number): EndpointRecord {
    const endpoint = this.records.add({ ...settings, fleet: firstFleet(settings.id, settings.workers.min, now, this.world.timings.workerReadyMs) });
    this.bill(endpoint, now);
    return endpoint;
  }

  /** Applies a checked change: a new configuration restarts every worker on the next version; a new minimum adds or removes workers. */
  update(endpoint: EndpointRecord, change: EndpointChange, now: number): void {
    const reconfigured = CONFIGURATION.some((key) => key in change && !sameJson(change[key], endpoint[key]));
    Object.assign(endpoint, change);
    const { workerReadyMs } = this.world.timings;
    if (reconfigured) restarted(endpoint.id, endpoint.fleet, endpoint.workers.min, now, workerReadyMs);
    else resized(endpoint.id, endpoint.fleet, endpoint.workers.min, now, workerReadyMs);
    this.bill(endpoint, now);
  }

  /** New worker settings (control plane); they act from `settings.since` on. */
  setWorkerSettings(endpoint: EndpointRecord, settings: WorkerSettings): void {
    endpoint.workerSettings = settings;
  }

  /** Its workers stop, and stop billing, now. */
  delete(endpoint: EndpointRecord, now: number): void {
    this.records.delete(endpoint);
    this.world.billing.stopAllBut(workersKey(endpoint), new Set(), now);
  }

  /** Ids of the endpoints whose workers attach this network volume (it cannot be deleted under them). */
  endpointsUsingVolume(volumeId: string): string[] {
    return this.records
      .all()
      .filter((e) => e.networkVolumes.includes(volumeId))
      .map((e) => e.id);
  }

  /** Ids of the account's endpoints whose workers pull with this registry credential. */
  endpointsUsingRegistry(accountId: string, registryId: string): string[] {
    return this.records
      .all()
      .filter((e) => e.accountId === accountId && e.registry === registryId)
      .map((e) => e.id);
  }
}

/** How state files kept an endpoint before endpoints could change: its answer, built once at create. */
interface SavedAnswer {
  id: string;
  accountId: string;
  createdAt: number;
  view: Omit<EndpointSettings, "id" | "accountId" | "createdAt" | "gpu" | "workers"> & {
    createdAt: string;
    gpu: Omit<EndpointGpu, "excludedTypes"> & { excludedTypes?: string[] };
    workers: { min: number; max: number; idleTimeout?: number };
  };
}

/** Such a saved answer, read back as settings (every endpoint then was a GPU one; an omitted idle timeout was the default). */
function fromSavedAnswer({ id, accountId, createdAt, view }: SavedAnswer): EndpointSettings {
  const { gpu, workers, requestUrls: _urls, createdAt: _at, ...rest } = view as SavedAnswer["view"] & { requestUrls?: unknown };
  return {
    ...rest,
    id,
    accountId,
    createdAt,
    gpu: { ...gpu, excludedTypes: gpu.excludedTypes ?? [] },
    cpu: null,
    workers: { min: workers.min, max: workers.max, idleTimeout: workers.idleTimeout ?? 10 },
  };
}
