/**
 * Multi-node clusters (reference OpenAPI `/v2/clusters`, and the v2 document's `PodCluster`):
 * `podCount` identical GPU pods of `gpuCountPerPod` GPUs each, placed together in one data
 * center on a private overlay network. The request schemas carry the 422 rules; the rules that
 * need the catalog (`clusterComputeViolations`) are 400s, judged by the emulator on receipt and
 * by the provider at preview. Member pods are ordinary Pod objects with a `cluster` block
 * (pods.ts) and are read through `/v2/clusters/{id}/pods`.
 */
import { z } from "zod";
import { dateTime, portSpec, stringMap } from "./common";
import type { Template } from "./catalog";
import { createPodCrossFieldViolations } from "./pod-rules";
import { ClusterRole, NetworkMount, PersistentMount, type CreatePodRequest, type PodStatus } from "./pods";
import { templateUseViolation } from "./templates";
import { optional, tolerantList, withDefault } from "./reading";

export const ClusterType = z.enum(["APPLICATION", "TRAINING", "SLURM", "RAY"]);
export type ClusterType = z.infer<typeof ClusterType>;

/** Nodes of a cluster (reference OpenAPI `ClusterCompute.podCount`). */
export const CLUSTER_POD_COUNT = { min: 2, max: 250 } as const;

/**
 * Clusters are priced and bounded on the SECURE cloud (decision 37 of docs/api-contract.md:
 * the create has no `cloud`, and the billing records have no community component).
 */
export const CLUSTER_CLOUD = "SECURE";

export const ClusterCompute = z.strictObject({
  gpuTypeId: z.string().min(1),
  gpuCountPerPod: z.int().min(1),
  podCount: z.int().min(CLUSTER_POD_COUNT.min).max(CLUSTER_POD_COUNT.max),
});
export type ClusterCompute = z.infer<typeof ClusterCompute>;

/** A cluster's mounts: the public `Mounts` (persistent or one network volume; no global volume). */
export const ClusterMounts = z.strictObject({
  persistent: PersistentMount.optional(),
  network: z.array(NetworkMount).max(1).optional(),
});

/**
 * POST /v2/clusters (reference OpenAPI `CreateClusterRequest`): `BaseContainerConfig` (no
 * `registry`: private images are not supported for clusters, and no exec-form `cmd` or
 * `entrypoint`), and no `templateId`: a template's container configuration is spread into the
 * request by the client (decision 37).
 */
export const CreateClusterRequest = z.strictObject({
  name: z.string().min(1),
  type: ClusterType,
  compute: ClusterCompute,
  image: z.string().optional(),
  args: z.string().optional(),
  disk: z.int().min(1).optional(),
  env: stringMap.optional(),
  ports: z.array(portSpec).optional(),
  dataCenterIds: z.array(z.string()).optional(),
  mounts: ClusterMounts.optional(),
  startJupyter: z.boolean().optional(),
  startSsh: z.boolean().optional(),
});
export type CreateClusterRequest = z.infer<typeof CreateClusterRequest>;

/** PATCH /v2/clusters/{id}: a rename, nothing else. */
export const UpdateClusterRequest = z.strictObject({ name: z.string().min(1) });
export type UpdateClusterRequest = z.infer<typeof UpdateClusterRequest>;

/**
 * The cluster rules the request alone cannot say (400): the GPU type must be in the catalog and
 * offered on SECURE, and each node's GPUs fit its largest machine (`maxCount.secure`), and a
 * cluster runs an image. `gpuTypes` is the catalog's GPU list (what the caller read of it).
 */
export function clusterComputeViolations(
  request: { compute?: { gpuTypeId?: unknown; gpuCountPerPod?: unknown } },
  gpuTypes: ReadonlyArray<{ id: string; maxCount: { secure: number } }>,
): string[] {
  const compute = request.compute;
  if (!compute || typeof compute.gpuTypeId !== "string") return [];
  const gpuType = gpuTypes.find((g) => g.id === compute.gpuTypeId);
  if (!gpuType) return [`compute.gpuTypeId: "${compute.gpuTypeId}" is not a GPU type of the catalog`];
  const largest = gpuType.maxCount.secure;
  if (largest === 0) return [`compute.gpuTypeId: ${gpuType.id} is not offered on ${CLUSTER_CLOUD} cloud, where clusters run`];
  if (typeof compute.gpuCountPerPod === "number" && compute.gpuCountPerPod > largest) {
    return [`compute.gpuCountPerPod: must be at most ${largest}, the GPUs of the largest ${gpuType.id} machine (catalog maxCount)`];
  }
  return [];
}

/** One member's pod create: the cluster's container configuration on one node of its compute, on SECURE (decision 37). */
export function clusterMemberRequest(body: CreateClusterRequest): CreatePodRequest {
  const { type: _type, compute, dataCenterIds: _dataCenterIds, ...container } = body;
  return { ...container, gpu: { id: compute.gpuTypeId, count: compute.gpuCountPerPod }, cloud: CLUSTER_CLOUD };
}

/**
 * The 400 rules of a cluster create that need no catalog: its image, and the pod create's own
 * rules applied to one member's request (persistent and network mounts not together, …), so a
 * member's rule is stated once. `invalid`: top-level members that broke their shape, not judged.
 */
export function clusterCreateViolations(body: CreateClusterRequest, invalid: ReadonlySet<string> = new Set()): string[] {
  const image = invalid.has("image") ? undefined : clusterImageViolation(body);
  // The member's `gpu` is the cluster's `compute`; its image is judged by the cluster's rule.
  const memberInvalid = new Set([...invalid, "image", ...(invalid.has("compute") ? ["gpu"] : [])]);
  const member = invalid.has("compute") ? { ...body, compute: { gpuTypeId: "", gpuCountPerPod: 1, podCount: CLUSTER_POD_COUNT.min } } : body;
  return [...(image === undefined ? [] : [image]), ...createPodCrossFieldViolations(clusterMemberRequest(member), memberInvalid)];
}

/** A cluster without an image has nothing to run on its nodes (400 on create). */
export function clusterImageViolation(request: { image?: unknown }): string | undefined {
  return typeof request.image === "string" && request.image.length > 0 ? undefined : "image: a cluster needs an image (give `image`, or spread a template's)";
}

/**
 * A cluster request with a template's container configuration spread under it (decision 37):
 * what the request sets wins, `env` is merged key by key over the template's, and the
 * template's persistent mount, `startSsh` and `startJupyter` apply where the request says
 * nothing. A template that needs a registry credential, or is a serverless one, cannot be used.
 */
export function spreadTemplate<R extends Partial<CreateClusterRequest>>(request: R, template: Template): { request: R; violations: string[] } {
  const violations: string[] = [];
  const use = templateUseViolation(template, "cluster");
  if (use) violations.push(use);
  if (template.registry !== null) {
    violations.push(`templateId: "${template.id}" pulls its image with a registry credential, and clusters cannot use private registries`);
  }
  const spread: Partial<CreateClusterRequest> = { image: template.image };
  if (template.args !== undefined && template.args !== "") spread.args = template.args;
  if (template.disk !== undefined) spread.disk = template.disk;
  if (template.ports !== undefined && template.ports.length > 0) spread.ports = template.ports;
  if (template.mounts?.persistent) spread.mounts = { persistent: { size: template.mounts.persistent.size, path: template.mounts.persistent.path } };
  if (template.startSsh) spread.startSsh = true;
  if (template.startJupyter) spread.startJupyter = true;
  const env = { ...template.env, ...request.env };
  const out = { ...spread, ...request } as R;
  if (Object.keys(env).length > 0) out.env = env;
  return { request: out, violations };
}

/** The role of the member of rank `rank` (rank 0 is the entry node); none for TRAINING and APPLICATION. */
export function clusterRole(type: ClusterType, rank: number): ClusterRole | undefined {
  if (type === "SLURM") return rank === 0 ? "SLURM_CONTROLLER" : "SLURM_COMPUTE";
  if (type === "RAY") return rank === 0 ? "RAY_HEAD" : "RAY_WORKER";
  return undefined;
}

/**
 * The Cluster response, read tolerantly (reading.ts). Required: `id`, `name`, `compute` (the
 * shape the provider records and compares) and `createdAt` (create recovery). An unknown
 * `type` reads as itself (nothing decides on it but the roles, which the members carry);
 * `pods` defaults to none; `dataCenterId`, `network` and `primary` are absent until placed.
 */
export const Cluster = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  compute: z.looseObject({ gpuTypeId: z.string(), gpuCountPerPod: z.int(), podCount: z.int() }),
  template: optional(z.string()),
  dataCenterId: optional(z.string()),
  pods: withDefault(
    z.looseObject({ total: withDefault(z.int(), () => 0), byStatus: withDefault(z.record(z.string(), z.int()), () => ({})) }),
    () => ({ total: 0, byStatus: {} }),
  ),
  network: optional(z.looseObject({ cidr: z.string(), vxlanId: optional(z.int()), vxlanPort: optional(z.int()) })),
  primary: optional(z.looseObject({ podId: z.string(), status: z.string(), sshEndpoint: optional(z.string()) })),
  createdAt: dateTime,
});
export type Cluster = z.output<typeof Cluster>;

export const ListClustersResponse = tolerantList("clusters", Cluster);

/** `RUNNING 3, PROVISIONING 1` → `3/4 RUNNING`: the progress of a cluster's members. */
export function describeMemberStates(byStatus: Readonly<Record<string, number>>, total: number, target: PodStatus = "RUNNING"): string {
  const others = Object.entries(byStatus)
    .filter(([status, count]) => status !== target && count > 0)
    .map(([status, count]) => `${count} ${status}`);
  return `${byStatus[target] ?? 0}/${total} ${target}${others.length ? ` (${others.join(", ")})` : ""}`;
}
