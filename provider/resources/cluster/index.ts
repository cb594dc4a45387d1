/**
 * `compute:index:Cluster`: `podCount` identical GPU pods on one private overlay network, as a
 * managed Slurm or Ray topology, a training or an application cluster. The service's PATCH is a
 * rename, so every other input replaces the cluster. What the generic handlers cannot decide is
 * here: placement over ordered candidates (the service places every node or none), a
 * template's container configuration spread into the create (decision 37), the cluster's state
 * derived from its members, and the catalog rules of its nodes at preview.
 *
 * The owner mark rides in the name, as for volumes: the cluster list carries names only.
 */
import { CLUSTER_CLOUD, INJECTED_ENV_KEYS, POD_ACTIVE_STATUSES, byRank, clusterComputeViolations, clusterImageViolation, createClusterRequestViolations, createClusterWithPlacement, describeMemberStates, spreadTemplate, type ClusterWithMembers, type Pod } from "../../../sdk";
import type { CreateClusterRequest } from "../../../contract";
import { estimateClusterCost, roundPrice, type ClusterCostRequest, type PriceList } from "../../../contract/estimate";
import { toCheckFailures, type CheckFailure } from "../check-failures";
import { containsUnknown, isUnknown } from "../unknowns";
import {
  createRequestOf,
  inputsOf,
  same,
  type CheckedInputs,
  type DiffResult,
  type FactValues,
  type HookContext,
  type Props,
  type Recorded,
  type ResourceDefinition,
  type Wait,
} from "../definition";
import { candidateFailures, candidatesChooseGpuType, currentPlacement, placementDiff, placementChanged, placementFacts, placementPreview, waitViolations, withCapacityPlan } from "../placement";
import { podTarget } from "../readiness";
import { markInName, programName, renamedKeepingMark } from "../wire";
import { CLUSTER_INPUTS, CLUSTER_LIFETIME } from "./inputs";
import { parseMillis } from "../../../contract/time";
import { CLUSTER_OUTPUTS } from "./outputs";
import { CHANGES, EXAMPLE } from "./example";

export type ClusterInputs = CheckedInputs<typeof CLUSTER_INPUTS>;
export type ClusterFacts = FactValues<typeof CLUSTER_OUTPUTS>;
type Context = HookContext<ClusterWithMembers>;

/** A member no longer on its way to running (failed, exited, ended): the service offers no way to start it again (member pods refuse actions). */
const memberFailed = (pod: Pod) => !POD_ACTIVE_STATUSES.has(pod.status);

/** Every node runs with its rank and overlay address: what a distributed job needs to start. */
function nodeReady(pod: Pod): boolean {
  return pod.status === "RUNNING" && pod.cluster?.rank != null && pod.cluster.ip !== undefined;
}

/**
 * The cluster's state, from its members (the service gives only counts). A node that failed or
 * ended makes it ERROR; so does one that is gone from the list once every node listed has its
 * rank (ranks are given out when all nodes are placed, so a missing one ended and was removed).
 */
function stateOf(cluster: ClusterWithMembers): string {
  const { members } = cluster;
  if (members.some(memberFailed)) return "ERROR";
  const short = members.length < cluster.compute.podCount;
  if (short && members.length > 0 && members.every((pod) => pod.cluster?.rank != null)) return "ERROR";
  return !short && members.every(nodeReady) ? "RUNNING" : "PROVISIONING";
}

/** `3/4 RUNNING (1 STARTING)`: the members' progress, reported as it changes. */
function progressOf(cluster: ClusterWithMembers): string {
  const byStatus: Record<string, number> = {};
  for (const pod of cluster.members) byStatus[pod.status] = (byStatus[pod.status] ?? 0) + 1;
  const unranked = cluster.members.filter((pod) => pod.status === "RUNNING" && !nodeReady(pod)).length;
  return describeMemberStates(byStatus, cluster.compute.podCount) + (unranked > 0 ? `, ${unranked} without rank or address yet` : "");
}

/** The members that are not running, named, for a failed create. */
function membersReport(cluster: ClusterWithMembers): string {
  const off = cluster.members.filter((pod) => pod.status !== "RUNNING");
  const named = off.slice(0, 10).map((pod) => `${pod.id}${pod.cluster?.rank != null ? ` (rank ${pod.cluster.rank})` : ""} ${pod.status}`);
  return `${progressOf(cluster)}${named.length ? `; ${named.join(", ")}${off.length > named.length ? `, … ${off.length - named.length} more` : ""}` : ""}`;
}

const ready: Wait = { target: "RUNNING", failed: new Set(["ERROR"]) };

/** The create body from the inputs (`templateId` and `placement` are the provider's). */
const wireRequest = (inputs: Props): Props => createRequestOf(CLUSTER_INPUTS, inputs);

function violations(inputs: ClusterInputs): string[] {
  // With a template, its image is judged by checkHook, which reads it.
  return createClusterRequestViolations(wireRequest(inputs), { imageFromTemplate: inputs.templateId !== undefined });
}

/**
 * The nodes against the GPU catalog (read-only): each GPU type the cluster may land on must be
 * listed and offered on SECURE, with `gpuCountPerPod` within its largest machine. Judged for a
 * new cluster or a changed shape: one that exists is not judged again by today's catalog. A
 * catalog that cannot be read leaves the rule to the service at create.
 */
async function catalogFailures(context: Context, inputs: ClusterInputs, previous: Props): Promise<CheckFailure[]> {
  const { compute, placement } = inputs;
  if (!compute || containsUnknown(compute) || containsUnknown(placement)) return [];
  if (previous.compute !== undefined && same(previous.compute, compute) && same(previous.placement, placement)) return [];
  const gpuTypes = await context.cached("catalog:gpus", 300, () => context.api.catalog.gpuTypes()).catch(() => undefined);
  if (!gpuTypes) return [];
  // `compute.gpuTypeId` is judged where a candidate (or no candidate at all) leaves the type to it.
  const own = candidatesChooseGpuType(placement) ? [] : clusterComputeViolations({ compute }, gpuTypes);
  const perCandidate = (placement ?? []).flatMap((c, i) =>
    c?.gpuTypeId === undefined ? [] : clusterComputeViolations({ compute: { ...compute, gpuTypeId: c.gpuTypeId } }, gpuTypes).map((v) => v.replace(/^compute\.gpuTypeId:/, `placement[${i}].gpuTypeId:`)),
  );
  return toCheckFailures([...new Set([...own, ...perCandidate])], inputs);
}

/**
 * The template read and spread as create will (GET only), so its problems show at preview; for
 * a new cluster or a new template only: one read at create is never judged again (no link is kept).
 */
async function templateFailures(context: Context, inputs: ClusterInputs, previous: Props): Promise<CheckFailure[]> {
  const { templateId } = inputs;
  if (templateId === undefined || isUnknown(templateId) || previous.templateId === templateId) return [];
  const template = await context.api.templates
    .get(templateId)
    .catch(() => undefined);
  if (!template) return [{ property: "templateId", reason: `no template "${templateId}" can be read with this key` }];
  const spread = spreadTemplate(wireRequest(inputs), template);
  const image = clusterImageViolation(spread.request);
  return toCheckFailures([...spread.violations, ...(image ? [image] : [])], inputs);
}

function costRequest(inputs: Props): ClusterCostRequest {
  return {
    compute: inputs.compute as ClusterCostRequest["compute"],
    placement: (inputs.placement ?? undefined) as ClusterCostRequest["placement"],
    ...(typeof inputs.maxCostPerHour === "number" ? { maxCostPerHour: inputs.maxCostPerHour } : {}),
  };
}

/** Each candidate's price, uncapped, in the order given. */
function candidatePrices(inputs: Props, prices: PriceList) {
  const outcome = estimateClusterCost({ ...costRequest(inputs), maxCostPerHour: undefined }, prices);
  return outcome.ok ? outcome.estimate.candidates : undefined;
}

function facts(cluster: ClusterWithMembers, previous?: Partial<ClusterFacts>): ClusterFacts {
  const members = byRank(cluster.members);
  const primaryId = cluster.primary?.podId ?? members.find((pod) => pod.cluster?.rank === 0)?.id;
  const primaryPod = members.find((pod) => pod.id === primaryId);
  const endpoint = cluster.primary?.sshEndpoint?.match(/^(.*):(\d+)$/);
  const sshCommand = primaryPod?.ssh.direct?.command ?? (endpoint ? `ssh root@${endpoint[1]} -p ${endpoint[2]}` : null);
  return {
    clusterId: cluster.id,
    status: stateOf(cluster),
    dataCenterId: cluster.dataCenterId ?? null,
    gpuTypeId: cluster.compute.gpuTypeId,
    nodes: members.map((pod) => ({ podId: pod.id, rank: pod.cluster?.rank ?? null, role: pod.cluster?.role ?? null, ip: pod.cluster?.ip ?? null, status: pod.status })),
    primary: primaryId ? { podId: primaryId, sshCommand } : null,
    network: cluster.network ? { cidr: cluster.network.cidr } : null,
    costPerHour: roundPrice(members.reduce((sum, pod) => sum + pod.cost, 0)),
    placementChosen: previous?.placementChosen ?? { gpuTypeId: cluster.compute.gpuTypeId, dataCenterId: cluster.dataCenterId },
    placementAttempts: previous?.placementAttempts ?? [],
    createdAt: cluster.createdAt,
  };
}

/**
 * What the input list's table cannot say of a cluster: the shape's own rule (`compute.gpuTypeId`
 * is the candidates' choice while each candidate names a type), the placement, and a cluster
 * recorded before its nodes ran (an outage, the deadline) taken up again: an update resumes
 * the wait, even after a refresh.
 */
function diff(olds: Recorded<ClusterInputs, ClusterFacts>, news: ClusterInputs, table: DiffResult): DiffResult {
  const result = { replaces: [...table.replaces], updates: [...table.updates] };
  const before = olds.compute;
  const after = news.compute;
  if (isUnknown(after)) result.replaces.push("compute");
  else {
    const fields = ["gpuCountPerPod", "podCount", ...(candidatesChooseGpuType(news.placement) ? [] : ["gpuTypeId" as const])] as const;
    for (const field of fields) if (!same(before?.[field], after?.[field])) result.replaces.push(`compute.${field}`);
  }
  placementDiff(currentPlacement(olds.placementChosen, olds), olds.placement, news.placement, result);
  if (olds.status === "PROVISIONING") result.updates.push("status");
  return result;
}

/** Renames to match the inputs (an adopted cluster too), the mark kept; a no-op when it matches. */
async function rename(context: Context, inputs: ClusterInputs, cluster: ClusterWithMembers): Promise<ClusterWithMembers> {
  if (programName(cluster.name) === inputs.name) return cluster;
  const renamed = await context.api.clusters.rename(cluster.id, renamedKeepingMark(cluster.name, inputs.name));
  context.report("renamed");
  return { ...renamed, members: cluster.members };
}

/**
 * Until every node runs, then the name the program wants (an adopted cluster may carry the
 * program's old one). One deadline: `readyTimeoutSeconds`.
 */
async function settle(context: Context, inputs: ClusterInputs, cluster: ClusterWithMembers): Promise<ClusterWithMembers> {
  const running = stateOf(cluster) === "RUNNING" ? cluster : await context.awaitState(cluster.id, ready, cluster);
  return rename(context, inputs, running);
}

export const clusterResource = {
  name: "Cluster",
  kind: "cluster",
  description: "A multi-node GPU cluster: identical pods on one private overlay network, as a managed Slurm or Ray topology, a training or an application cluster.",
  inputs: CLUSTER_INPUTS,
  outputs: CLUSTER_OUTPUTS,
  idOutput: "clusterId",
  deletedAs: "deleted",
  // Until the service no longer has it, so `destroy` ends with no node billing.
  deleteWaitsForGone: true,
  price: {
    paths: ["compute.gpuTypeId", "compute.gpuCountPerPod", "compute.podCount", "placement", "maxCostPerHour"],
    lists: () => ({ gpuTypes: true, cpuFlavors: false }),
    estimate: (inputs, prices) => estimateClusterCost(costRequest(inputs), prices),
  },

  family: (api) => ({ get: (id) => api.clusters.withMembers(id), page: () => api.clusters.pageWithMembers(), delete: (id) => api.clusters.delete(id), watcher: api.clusterWatcher }),
  // A node failed: the service cannot start a member again, so a new cluster takes its place.
  states: { output: "status", of: stateOf, progress: progressOf, reason: membersReport, ended: new Set(), broken: new Set(["ERROR"]) },
  owner: markInName,
  lifetime: {
    ...CLUSTER_LIFETIME,
    serviceName: (cluster) => cluster.name,
    runStart: (cluster) => parseMillis(cluster.createdAt),
    rename: async (api, cluster, name) => ({ ...(await api.clusters.rename(cluster.id, name)), members: cluster.members }),
  },

  violations,
  checkHook: async (context, inputs, previous) => [
    ...candidateFailures(inputs.placement),
    ...toCheckFailures(waitViolations(inputs.waitForCapacity), inputs),
    ...(await catalogFailures(context, inputs, previous)),
    ...(await templateFailures(context, inputs, previous)),
    // A new cluster: where it would go, and whether any candidate is under the cap.
    ...(placementChanged(previous, inputs) && inputs.compute !== undefined && !containsUnknown(inputs.compute) ? await placementPreview(context, inputs, (prices) => candidatePrices(inputs, prices), () => inputs.compute?.gpuTypeId) : []),
  ],
  // Env values may be secrets: only their names are hashed into the mark, which the name shows.
  markSpec: (request, inputs) => ({
    request: { ...request, name: undefined, env: Object.keys((request.env as Props | undefined) ?? {}).sort() },
    templateId: inputs.templateId,
    placement: inputs.placement ?? [],
  }),
  async create(context, request, inputs) {
    const { api } = context;
    let body = wireRequest(request);
    if (inputs.templateId !== undefined) {
      const spread = spreadTemplate(body, await api.templates.get(inputs.templateId));
      if (spread.violations.length > 0) throw new Error(spread.violations.join("; "));
      body = spread.request;
    }
    const result = await withCapacityPlan(context, inputs, (prices, placement) => estimateClusterCost({ ...costRequest({ ...inputs, placement }), maxCostPerHour: undefined }, prices), () => (body as CreateClusterRequest).compute.gpuTypeId, (place) =>
      createClusterWithPlacement(api, body as CreateClusterRequest, inputs.placement ?? [], { place }),
    );
    if (result.attempts.length > 1) context.report(`placed on ${result.cluster.compute.gpuTypeId}${result.cluster.dataCenterId ? ` in ${result.cluster.dataCenterId}` : ""} after ${result.attempts.length} candidates`);
    return { live: { ...result.cluster, members: [] }, facts: placementFacts(result) };
  },
  ready: () => ready,
  // Every node: a distributed job needs all of them answering.
  readiness: {
    accepts: ["tcp", "ssh", "http", "logLine"],
    refusedBecause: "only a ServerlessEndpoint has workers",
    targets: (cluster) => byRank(cluster.members).map((pod) => podTarget(pod, `rank ${pod.cluster?.rank ?? "?"} (${pod.id})`)),
  },
  settle,
  afterCreate(context, _inputs, cluster) {
    context.report(`${cluster.compute.podCount} nodes of ${cluster.compute.gpuCountPerPod} × ${cluster.compute.gpuTypeId} on ${CLUSTER_CLOUD}${cluster.dataCenterId ? ` in ${cluster.dataCenterId}` : ""}`);
  },

  facts,
  imported(cluster) {
    const inputs: Props = { name: programName(cluster.name), type: cluster.type, compute: { gpuTypeId: cluster.compute.gpuTypeId, gpuCountPerPod: cluster.compute.gpuCountPerPod, podCount: cluster.compute.podCount } };
    // The container configuration is every member's: read from the first.
    const node = byRank(cluster.members)[0];
    if (node) {
      inputs.image = node.image;
      if (node.args !== "") inputs.args = node.args;
      inputs.disk = node.disk;
      const env = { ...node.env };
      if (env.PUBLIC_KEY !== undefined) inputs.startSsh = true;
      if (env.JUPYTER_PASSWORD !== undefined) inputs.startJupyter = true;
      for (const key of INJECTED_ENV_KEYS) delete env[key];
      if (Object.keys(env).length > 0) inputs.env = env;
      if (node.ports.length > 0) inputs.ports = node.ports;
    }
    return inputs;
  },
  refreshed(olds, cluster) {
    const inputs = inputsOf(CLUSTER_INPUTS, olds);
    // A rename behind the stack's back shows as drift.
    inputs.name = programName(cluster.name);
    return inputs;
  },
  diff,
  async previewDiff(context, _id, olds) {
    // The service cannot start or replace a member alone (members refuse actions): say what the replacement is.
    if (olds.status === "ERROR") context.report("a node failed, and the service cannot restart or replace a member alone: the whole cluster is replaced");
  },
  async update(context, id, olds, news) {
    // A cluster recorded while its nodes were still starting (an outage, a deadline) resumes the wait.
    if (olds.name === news.name && olds.status !== "PROVISIONING") return undefined;
    return { live: await settle(context, news, await context.api.clusters.withMembers(id)) };
  },
  example: EXAMPLE,
  exampleChanges: CHANGES,
} satisfies ResourceDefinition<ClusterInputs, ClusterWithMembers, ClusterFacts>;
