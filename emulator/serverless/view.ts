/** An endpoint's stored settings → its wire shape (contract `Endpoint`), built on every read. */
import type { z } from "zod";
import type { Endpoint } from "../../contract";
import { iso } from "../time";
import type { EndpointRecord, EndpointType } from "./store";

export type EndpointView = z.input<typeof Endpoint>;

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
