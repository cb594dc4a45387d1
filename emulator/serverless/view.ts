/**
 * An endpoint's stored settings → its wire shape (contract `Endpoint`), and its workers → theirs
 * (contract `ListEndpointWorkersResponse`), built on every read.
 */
import type { z } from "zod";
import type { Endpoint, ListEndpointWorkersResponse } from "../../contract";
import { iso } from "../time";
import type { WorkerPlacement } from "./placement";
import type { EndpointRecord, EndpointType } from "./store";
import { readyAt, workerStatus, type WorkerStatus } from "./workers";

export type EndpointView = z.input<typeof Endpoint>;
export type WorkersView = z.input<typeof ListEndpointWorkersResponse>;

const REQUEST_HOST = "https://api.compute.local/v2";

function requestUrls(id: string, type: EndpointType): Record<string, string> {
  if (type !== "QUEUE") return { base: `https://${id}.api.compute.local`, health: `https://${id}.api.compute.local/ping` };
  return {
    run: `${REQUEST_HOST}/${id}/run`,
    runSync: `${REQUEST_HOST}/${id}/runsync`,
    status: `${REQUEST_HOST}/${id}/status/{job_id}`,
    stream: `${REQUEST_HOST}/${id}/stream/{job_id}`,
    cancel: `${REQUEST_HOST}/${id}/cancel/{job_id}`,
    retry: `${REQUEST_HOST}/${id}/retry/{job_id}`,
    purgeQueue: `${REQUEST_HOST}/${id}/purge-queue`,
    health: `${REQUEST_HOST}/${id}/health`,
  };
}

/**
 * A GPU endpoint answers `gpu` and no `cpu`; a CPU endpoint answers `gpu: null` and its `cpu`
 * choices with their memory (reference OpenAPI: `cpu` is omitted for GPU endpoints).
 */
export function endpointView(e: EndpointRecord): EndpointView {
  // A queue endpoint scaled by request count has no idle timeout to report.
  const idleTimeoutApplies = !(e.type === "QUEUE" && e.scaling.type === "REQUEST_COUNT");
  const view: EndpointView = {
    id: e.id,
    name: e.name,
    type: e.type,
    image: e.image,
    args: e.args,
    disk: e.disk,
    env: { ...e.env },
    ports: [...e.ports],
    registry: e.registry,
    gpu: e.gpu && {
      pools: [...e.gpu.pools],
      ...(e.gpu.excludedTypes.length > 0 ? { excludedTypes: [...e.gpu.excludedTypes] } : {}),
      count: e.gpu.count,
      allowedCudaVersions: [...e.gpu.allowedCudaVersions],
      minCudaVersion: e.gpu.minCudaVersion,
    },
    ...(e.cpu ? { cpu: e.cpu.map((choice) => ({ ...choice })) } : {}),
    workers: { min: e.workers.min, max: e.workers.max, ...(idleTimeoutApplies ? { idleTimeout: e.workers.idleTimeout } : {}) },
    scaling: { ...e.scaling },
    dataCenterIds: [...e.dataCenterIds],
    networkVolumes: [...e.networkVolumes],
    timeout: e.timeout,
    flashboot: e.flashboot,
    createdAt: iso(e.createdAt),
    requestUrls: requestUrls(e.id, e.type),
  };
  if (e.templateId !== undefined) view.templateId = e.templateId;
  return view;
}

/**
 * `GET /v2/serverless/{id}/workers` (reference OpenAPI `ListEndpointWorkersResponse`): the active
 * workers, all on the current configuration (a restart replaces them all, so none is stale), and
 * the summary by status. `uptimeSeconds` counts from the moment a worker became ready.
 */
export function workersView(e: EndpointRecord, placement: WorkerPlacement, now: number): WorkersView {
  const workers = e.fleet.workers.map((worker) => {
    const status = workerStatus(worker, e.workerSettings, now);
    const ready = readyAt(worker, e.workerSettings);
    return {
      id: worker.id,
      status,
      isStale: false,
      version: e.fleet.version,
      gpuCount: e.gpu?.count ?? 0,
      image: e.image,
      uptimeSeconds: status === "INITIALIZING" || ready === null ? null : Math.floor((now - ready) / 1000),
      gpuTypeId: placement.gpuTypeId,
      dataCenterId: placement.dataCenterId,
      startedAt: iso(worker.startedAt),
    };
  });
  const count = (status: WorkerStatus) => workers.filter((w) => w.status === status).length;
  return {
    workers,
    summary: {
      running: count("RUNNING"),
      idle: count("IDLE"),
      initializing: count("INITIALIZING"),
      throttled: count("THROTTLED"),
      unhealthy: count("UNHEALTHY"),
      total: workers.length,
    },
    endpointVersion: e.fleet.version,
  };
}
