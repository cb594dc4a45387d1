/** A create request (with its template) → the endpoint's wire shape (contract `Endpoint`), with the service's defaults. */
import type { z } from "zod";
import { DEFAULT_CONTAINER_DISK_GB, type CreateEndpointRequest, type Endpoint } from "../../contract";
import type { TemplateRecord } from "../templates/store";
import { iso } from "../time";

export type EndpointView = z.input<typeof Endpoint>;

const REQUEST_HOST = "https://api.compute.local/v2";

function requestUrls(id: string, type: CreateEndpointRequest["type"]): Record<string, string> {
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

export function endpointView(
  id: string,
  body: CreateEndpointRequest,
  template: TemplateRecord | undefined,
  selection: { pools: string[]; excluded: string[] },
  now: number,
): EndpointView {
  const type = body.type;
  // A queue endpoint scaled by request count has no idle timeout to report.
  const idleTimeoutApplies = !(type === "QUEUE" && body.scaling.type === "REQUEST_COUNT");
  const view: EndpointView = {
    id,
    name: body.name,
    type,
    image: body.image ?? template?.image ?? "",
    args: body.args ?? template?.args ?? "",
    disk: body.disk ?? template?.disk ?? DEFAULT_CONTAINER_DISK_GB,
    env: { ...(template?.env ?? {}), ...(body.env ?? {}) },
    ports: body.ports ?? template?.ports ?? [],
    registry: body.registry !== undefined ? body.registry : (template?.registry ?? null),
    gpu: {
      pools: selection.pools,
      ...(selection.excluded.length > 0 ? { excludedTypes: selection.excluded } : {}),
      count: body.gpu?.count ?? 1,
      allowedCudaVersions: body.gpu?.allowedCudaVersions ?? template?.allowedCudaVersions ?? [],
      minCudaVersion: body.gpu?.minCudaVersion ?? null,
    },
    workers: {
      min: body.workers?.min ?? 0,
      max: body.workers?.max ?? 3,
      ...(idleTimeoutApplies ? { idleTimeout: body.workers?.idleTimeout ?? 10 } : {}),
    },
    scaling: body.scaling,
    dataCenterIds: body.dataCenterIds ?? [],
    networkVolumes: body.networkVolumes ?? [],
    timeout: body.timeout ?? 300000,
    flashboot: body.flashboot ?? "OFF",
    createdAt: iso(now),
    requestUrls: requestUrls(id, type),
  };
  if (template) view.templateId = template.id;
  return view;
}
