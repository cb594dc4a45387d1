/**
 * Serverless endpoints (reference OpenAPI `CreateEndpointRequest`): create stores the endpoint,
 * reads return it. Workers are not simulated; the CLI's `serverless create --hub-id` only needs
 * the endpoint to exist with the release's image, disk, env and GPU selection.
 */
import { CreateEndpointRequest, createEndpointViolations, templateUseViolation } from "../../contract";
import type { Fixture } from "../fixture";
import { badRequest, json, noContent, notFound, unprocessable, type Reply } from "../http";
import { randomId } from "../ids";
import type { ResourceModule, World } from "../module";
import { route, type Operation, type Route } from "../router";
import { iso } from "../time";

export interface EndpointRecord {
  id: string;
  accountId: string;
  createdAt: number;
  view: Record<string, unknown>;
}

const REQUEST_HOST = "https://api.compute.local/v2";

export class Serverless implements ResourceModule {
  readonly name = "serverless";
  private endpoints = new Map<string, EndpointRecord>();

  constructor(private readonly world: World) {}

  reset(_fixture: Fixture): void {
    this.endpoints = new Map();
  }

  snapshot(): EndpointRecord[] {
    return [...this.endpoints.values()];
  }

  restore(slice: unknown): void {
    this.endpoints = new Map((slice as EndpointRecord[]).map((e) => [e.id, e]));
  }

  all(): EndpointRecord[] {
    return [...this.endpoints.values()];
  }

  private find(accountId: string, id: string): EndpointRecord {
    const endpoint = this.endpoints.get(id);
    if (!endpoint || endpoint.accountId !== accountId) throw notFound("serverless endpoint", id);
    return endpoint;
  }

  private create(op: Operation<CreateEndpointRequest>): Reply {
    const { body, account, now } = op;
    const catalog = this.world.catalog;
    const template = body.templateId ? this.world.templates.resolve(account.id, body.templateId) : undefined;
    const wrongTemplate = template && templateUseViolation(template, "endpoint");
    if (wrongTemplate) throw unprocessable("The request does not match the contract", [wrongTemplate]);
    const gpu = body.gpu!;
    const knownPools = catalog.gpuPools();
    const pools = gpu.pools ?? [];
    const unknownPools = pools.filter((p) => !knownPools.includes(p));
    if (unknownPools.length > 0) {
      throw badRequest(
        `gpu.pools: unknown GPU pool ${unknownPools.map((p) => `"${p}"`).join(", ")}; pools are the "pool" field of GET /v2/catalog/gpus (GPU type ids go in gpu.excludedTypes)`,
      );
    }
    const excluded = (gpu.excludedTypes ?? []).map((t) => t.trim());
    const typesInPools = [...new Set(pools)].flatMap((pool) =>
      knownPools.includes(pool) ? this.gpuTypesOfPool(pool) : [],
    );
    const stray = excluded.filter((t) => !typesInPools.includes(t));
    if (stray.length > 0) throw badRequest(`gpu.excludedTypes: ${stray.join(", ")} ${stray.length > 1 ? "are" : "is"} not a GPU type in the selected pools`);
    if (typesInPools.every((t) => excluded.includes(t))) throw badRequest("gpu.excludedTypes: the selection leaves no GPU type");
    const unknownDcs = (body.dataCenterIds ?? []).filter((id) => !catalog.dataCenter(id));
    if (unknownDcs.length > 0) throw badRequest(`dataCenterIds: unknown data center ${unknownDcs.join(", ")}`);
    const missingVolumes = (body.networkVolumes ?? []).filter((id) => !this.world.volumes.networkVolume(account.id, id));
    if (missingVolumes.length > 0) throw badRequest(`networkVolumes: no network volume ${missingVolumes.join(", ")} on this account`);

    const id = randomId(8);
    const type = body.type;
    const idleTimeoutApplies = !(type === "QUEUE" && body.scaling.type === "REQUEST_COUNT");
    const view: Record<string, unknown> = {
      id,
      name: body.name,
      type,
      image: body.image ?? template?.image ?? "",
      args: body.args ?? template?.args ?? "",
      disk: body.disk ?? template?.disk ?? 20,
      env: { ...(template?.env ?? {}), ...(body.env ?? {}) },
      ports: body.ports ?? template?.ports ?? [],
      registry: body.registry !== undefined ? body.registry : (template?.registry ?? null),
      gpu: {
        pools,
        ...(excluded.length > 0 ? { excludedTypes: excluded } : {}),
        count: gpu.count ?? 1,
        allowedCudaVersions: gpu.allowedCudaVersions ?? template?.allowedCudaVersions ?? [],
        minCudaVersion: gpu.minCudaVersion ?? null,
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
      requestUrls:
        type === "QUEUE"
          ? {
              run: `${REQUEST_HOST}/${id}/run`,
              runSync: `${REQUEST_HOST}/${id}/runsync`,
              status: `${REQUEST_HOST}/${id}/status/{job_id}`,
              stream: `${REQUEST_HOST}/${id}/stream/{job_id}`,
              cancel: `${REQUEST_HOST}/${id}/cancel/{job_id}`,
              retry: `${REQUEST_HOST}/${id}/retry/{job_id}`,
              purgeQueue: `${REQUEST_HOST}/${id}/purge-queue`,
              health: `${REQUEST_HOST}/${id}/health`,
            }
          : { base: `https://${id}.api.compute.local`, health: `https://${id}.api.compute.local/ping` },
    };
    if (template) view.templateId = template.id;
    const endpoint: EndpointRecord = { id, accountId: account.id, createdAt: now, view };
    this.endpoints.set(id, endpoint);
    return json(201, view);
  }

  private gpuTypesOfPool(pool: string): string[] {
    return this.world.catalog
      .gpuTypeIds()
      .filter((id) => this.world.catalog.gpuType(id)?.pool === pool);
  }

  routes(): Array<Route<unknown>> {
    return [
      route({
        method: "GET",
        path: "/v2/serverless",
        family: "serverless",
        handle: (op) => json(200, { endpoints: this.all().filter((e) => e.accountId === op.account.id).map((e) => e.view) }),
      }),
      route({
        method: "POST",
        path: "/v2/serverless",
        family: "serverless",
        body: CreateEndpointRequest,
        violations: createEndpointViolations,
        crossField: (body) => {
          const out: string[] = [];
          if (!body.gpu) out.push("gpu: is required (exactly one of gpu or cpu; CPU endpoints are not offered here)");
          if (body.image === undefined && body.templateId === undefined) out.push("image: is required unless templateId is set");
          const cuda = body.gpu?.allowedCudaVersions;
          if (cuda && cuda.length > 0 && body.gpu?.minCudaVersion !== undefined) {
            out.push("gpu.minCudaVersion: cannot be combined with a non-empty gpu.allowedCudaVersions");
          }
          if (body.workers?.min !== undefined && body.workers.max !== undefined && body.workers.min > body.workers.max) {
            out.push("workers.min: must not exceed workers.max");
          }
          return out;
        },
        handle: (op) => this.create(op),
      }),
      route({
        method: "GET",
        path: "/v2/serverless/:id",
        family: "serverless",
        handle: (op) => json(200, this.find(op.account.id, op.params.id).view),
      }),
      route({
        method: "DELETE",
        path: "/v2/serverless/:id",
        family: "serverless",
        handle: (op) => {
          this.endpoints.delete(this.find(op.account.id, op.params.id).id);
          return noContent();
        },
      }),
    ];
  }
}
