/**
 * A serverless endpoint from a Hub repository's release (contract decision 26): the one rule
 * `compute serverless create --hub-id` and the `ServerlessEndpoint` resource's `hubRepo` share.
 *
 * The release names GPU *types* (`gpuIds`), an endpoint takes GPU *pools* (`gpu.pools`) with
 * `gpu.excludedTypes`: each listed type is mapped to its pool through the GPU catalog, and every
 * other type of those pools is excluded, so workers run only on the listed types. Pure: the
 * caller reads the repository and the catalog, and nothing is sent when this refuses.
 */
import type { CreateEndpointRequest, GpuType, HubRepo } from "../contract";

/** Queue-based endpoint scaled on queue delay: the reference OpenAPI's default shape, 4 s. */
export const HUB_SCALING = { type: "QUEUE_DELAY", queueDelay: 4 } as const;

export type HubDeployPlan =
  | { ok: true; request: CreateEndpointRequest; gpuIds: string[] }
  /** `chosen`: the problem is in GPU ids the caller chose, and `problem` starts with the id (else it is in the repository's release). */
  | { ok: false; problem: string; chosen: boolean };

export function repoLabel(repo: HubRepo): string {
  return `${repo.owner}/${repo.name} (${repo.id})`;
}

/**
 * The release's container settings and routing, without its GPU types: for a caller that
 * chooses the compute itself (the `ServerlessEndpoint` resource with its own `gpu` or `cpu`).
 */
export function hubReleaseRequest(repo: HubRepo, name: string): { ok: true; request: CreateEndpointRequest } | { ok: false; problem: string; chosen: false } {
  const release = repo.release;
  if (!release) return { ok: false, chosen: false, problem: `Hub repository ${repoLabel(repo)} has no release yet, so there is nothing to deploy` };
  return { ok: true, request: { name, type: "QUEUE", scaling: HUB_SCALING, image: release.image, disk: release.config.containerDiskInGb, env: release.config.env } };
}

/** The create request for a release; `gpuIds` replace the release's GPU types when given. */
export function hubEndpointRequest(repo: HubRepo, catalog: GpuType[], options: { name: string; gpuIds?: string[] }): HubDeployPlan {
  const base = hubReleaseRequest(repo, options.name);
  if (!base.ok) return base;
  const release = repo.release!;
  const chosen = options.gpuIds !== undefined;
  const wanted = options.gpuIds ?? release.config.gpuIds;
  if (wanted.length === 0) return { ok: false, chosen, problem: `the release ${release.tag} of ${repoLabel(repo)} lists no GPU types; choose them` };
  const types: GpuType[] = [];
  for (const id of wanted) {
    // An exact match first, then ignoring case.
    const found = catalog.find((t) => t.id === id) ?? catalog.find((t) => t.id.toLowerCase() === id.toLowerCase());
    const where = chosen ? `"${id}"` : `the release of ${repoLabel(repo)} names GPU type "${id}", which`;
    if (!found) return { ok: false, chosen, problem: `${where} is not a GPU type in the catalog` };
    if (found.pool === null) return { ok: false, chosen, problem: `${where} belongs to no GPU pool and cannot run serverless endpoints` };
    types.push(found);
  }
  const ids = new Set(types.map((t) => t.id));
  const pools = [...new Set(types.map((t) => t.pool!))];
  const excludedTypes = catalog.filter((t) => t.pool !== null && pools.includes(t.pool) && !ids.has(t.id)).map((t) => t.id);
  const request: CreateEndpointRequest = {
    ...base.request,
    gpu: {
      pools,
      ...(excludedTypes.length ? { excludedTypes } : {}),
      count: release.config.gpuCount,
      ...(release.config.allowedCudaVersions.length ? { allowedCudaVersions: release.config.allowedCudaVersions } : {}),
    },
  };
  return { ok: true, request, gpuIds: [...ids] };
}
