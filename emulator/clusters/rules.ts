/**
 * The cluster create rules that need the world's data. A cluster is `podCount` GPU pods placed
 * together, so its rules are the pod create's applied to one member, plus the cluster's own: the
 * contract's 400 rules (image, catalog compute), then, in the pods' order, the network volume
 * (404, 400 outside the requested data centers), pool access (403), the balance for every node
 * (402), and **all-or-nothing placement** (400): one data center where every node fits, or
 * nothing is held. Nothing here changes anything: the store creates what the plan decided.
 */
import {
  CLUSTER_CLOUD,
  clusterComputeViolations,
  clusterCreateViolations,
  clusterMemberRequest,
  type ClusterCompute,
  type CreateClusterRequest,
} from "../../contract";
import { gpuPodCostPerHour } from "../../contract/estimate";
import type { AccountRecord } from "../accounts/store";
import type { Catalog } from "../catalog/store";
import { badRequest } from "../http";
import type { Capacity, Machine } from "../placement/capacity";
import { candidateDataCenters, checkBalance, checkGpuAccess, networkVolumeDataCenters } from "../placement/rules";
import { expand, gpuPlacement, injectedEnv, type CreatePlan } from "../pods/rules";
import type { Volumes } from "../volumes/store";
import { freeCidr, OVERLAYS_PER_ACCOUNT } from "./network";

/** What the cluster rules read of the world; `clusters` for the overlays an account's clusters hold. */
export interface ClusterRulesWorld {
  readonly catalog: Catalog;
  readonly capacity: Capacity;
  readonly volumes: Volumes;
  readonly clusters: { cidrsOf(accountId: string): string[] };
}

/** Everything a create decided: where the cluster goes, its overlay, and one pod plan per node (member order). */
export interface ClusterPlan {
  dataCenterId: string;
  cidr: string;
  members: CreatePlan[];
}

/** Every 400 of a cluster create decided on a whole cluster, not on a member: placement and the overlay. */
const refused = (why: string) => badRequest(`cluster creation failed: ${why}`);

/**
 * The 400 rules of a cluster create: the contract's (the image, and the pod create's rules for a
 * member's request: the mounts rule, persistent or network but not both, is the pods' own), and
 * the catalog's compute rules.
 */
export function createViolations(world: Pick<ClusterRulesWorld, "catalog">, body: CreateClusterRequest): string[] {
  return [...clusterCreateViolations(body), ...clusterComputeViolations(body, world.catalog.gpuTypes.all())];
}

/**
 * The first candidate data center where every node fits, each node on one machine; else 400
 * naming the data center that came closest. Capacity is only read here.
 */
function placeNodes(capacity: Capacity, compute: ClusterCompute, candidates: string[], narrowed: boolean): Machine[] {
  const { gpuTypeId, gpuCountPerPod, podCount } = compute;
  let best: { dataCenterId: string; fits: number } | undefined;
  for (const dataCenterId of candidates) {
    const machines = capacity.fitNodes({ gpuTypeId, gpusPerNode: gpuCountPerPod, cloud: CLUSTER_CLOUD, dataCenterId, nodes: podCount });
    if (machines.length === podCount) return machines;
    if (!best || machines.length > best.fits) best = { dataCenterId, fits: machines.length };
  }
  const where = narrowed ? ` (candidates: ${candidates.join(", ")})` : "";
  const closest = best && best.fits > 0 ? `best: ${best.dataCenterId} fits ${best.fits} of ${podCount}` : "none has room for a single node";
  throw refused(`no data center has ${podCount} nodes of ${gpuCountPerPod} × ${gpuTypeId} free${where}; ${closest}`);
}

/** POST /v2/clusters, once its body passed the 422 and 400 rules. */
export function planCluster(world: ClusterRulesWorld, account: AccountRecord, body: CreateClusterRequest): ClusterPlan {
  const { compute } = body;
  // createViolations made sure the catalog has it.
  const gpuType = world.catalog.gpuTypes.get(compute.gpuTypeId)!;
  const deployment = expand(clusterMemberRequest(body), undefined);
  let candidates = candidateDataCenters(world.catalog, body.dataCenterIds);
  const volumeMount = deployment.mounts.network?.[0];
  if (volumeMount) candidates = networkVolumeDataCenters(world.volumes, account.id, volumeMount.volumeId, candidates, "cluster");
  checkGpuAccess(gpuType, account);
  const nodeCost = gpuPodCostPerHour(gpuType, CLUSTER_CLOUD, compute.gpuCountPerPod);
  checkBalance(account, nodeCost * compute.podCount, "cluster");
  const narrowed = candidates.length < world.catalog.dataCenters.all().length;
  const machines = placeNodes(world.capacity, compute, candidates, narrowed);
  const cidr = freeCidr(world.clusters.cidrsOf(account.id));
  if (cidr === undefined) throw refused(`the account already has ${OVERLAYS_PER_ACCOUNT} clusters, each on an overlay network of its own; delete one first`);
  // One injection for the whole cluster: every node runs the same configuration.
  const injected = injectedEnv(deployment, account);
  const member: Omit<CreatePlan, "placement"> = {
    deployment,
    cloud: CLUSTER_CLOUD,
    globalNetworking: false,
    env: { ...deployment.env, ...injected },
    injected,
    mounts: deployment.mounts,
  };
  return {
    dataCenterId: machines[0].dataCenterId,
    cidr,
    // Each member its own copy: pods are stored, saved and restored one by one.
    members: machines.map((machine) => structuredClone({ ...member, placement: gpuPlacement(gpuType, compute.gpuCountPerPod, machine, nodeCost) })),
  };
}
