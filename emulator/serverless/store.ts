/**
 * Serverless endpoints as stored: the settings an endpoint was created with, as PATCH changed
 * them since (settings.ts works them out; view.ts builds the answer from them on every read).
 * Workers are not simulated.
 */
import type { CreateEndpointRequest } from "../../contract";
import { TableModule } from "../records";

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

export interface EndpointRecord extends ContainerSettings {
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

/** What a PATCH may change: everything but identity, type and creation. */
export type EndpointChange = Partial<Omit<EndpointRecord, "id" | "accountId" | "createdAt" | "type" | "templateId">>;

export class Serverless extends TableModule<EndpointRecord> {
  constructor() {
    super("serverless endpoint");
  }

  override restore(slice: unknown): void {
    this.records.load((slice as Array<EndpointRecord | SavedAnswer>).map((saved) => ("view" in saved ? fromSavedAnswer(saved) : saved)));
  }

  find(accountId: string, id: string): EndpointRecord {
    return this.records.owned(accountId, id);
  }

  add(endpoint: EndpointRecord): EndpointRecord {
    return this.records.add(endpoint);
  }

  update(endpoint: EndpointRecord, change: EndpointChange): void {
    Object.assign(endpoint, change);
  }

  delete(endpoint: EndpointRecord): void {
    this.records.delete(endpoint);
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
  view: Omit<EndpointRecord, "id" | "accountId" | "createdAt" | "gpu" | "workers"> & {
    createdAt: string;
    gpu: Omit<EndpointGpu, "excludedTypes"> & { excludedTypes?: string[] };
    workers: { min: number; max: number; idleTimeout?: number };
  };
}

/** Such a saved answer, read back as settings (every endpoint then was a GPU one; an omitted idle timeout was the default). */
function fromSavedAnswer({ id, accountId, createdAt, view }: SavedAnswer): EndpointRecord {
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
