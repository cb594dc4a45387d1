/**
 * Multi-node clusters: create (never twice), read, list, rename, delete, and the members. A
 * member is a whole Pod (`cluster` block set); the cluster itself carries only a summary of
 * them, so a reader that needs each node reads the members beside it (`withMembers`).
 */
import { createOnce, type HttpCore } from "../http";
import { Cluster, ListClustersResponse, ListPodsResponse, type CreateClusterRequest, type Pod, type SetAside } from "../../contract";
import { ResponseValidationError } from "../errors";
import type { Pods } from "./pods";
import { assertValid, createClusterRequestViolations } from "../validate";

/** A cluster with its member pods, ordered by rank (unranked last). */
export type ClusterWithMembers = Cluster & { members: Pod[] };

/** Members in rank order: rank 0 (the entry node) first, members without a rank yet last, by id. */
export function byRank(members: Pod[]): Pod[] {
  const rank = (pod: Pod) => pod.cluster?.rank ?? Number.MAX_SAFE_INTEGER;
  return [...members].sort((a, b) => rank(a) - rank(b) || a.id.localeCompare(b.id));
}

export class Clusters {
  constructor(
    private readonly http: HttpCore,
    private readonly pods: Pods,
  ) {}

  /**
   * Creates a cluster, never twice: after a lost answer the list is searched for one of the
   * same name created after the attempt began (as pods, `createOnce`). The service places every
   * node or none: a cluster that does not fit is a 400 that holds nothing.
   */
  create(request: CreateClusterRequest, options: { signal?: AbortSignal; validate?: boolean } = {}): Promise<Cluster> {
    if (options.validate !== false) assertValid("cluster create request", request, createClusterRequestViolations(request));
    return createOnce(this.http, this, { path: "/v2/clusters", body: request, schema: Cluster, signal: options.signal });
  }

  get(id: string, options: { signal?: AbortSignal } = {}): Promise<Cluster> {
    return this.http.request({ method: "GET", path: `/v2/clusters/${encodeURIComponent(id)}`, schema: Cluster, signal: options.signal });
  }

  /** The list with the clusters it could not read set aside. */
  async page(options: { signal?: AbortSignal } = {}): Promise<{ items: Cluster[]; setAside: SetAside[] }> {
    const response = await this.http.request({ method: "GET", path: "/v2/clusters", schema: ListClustersResponse, signal: options.signal });
    return { items: response.clusters, setAside: response.setAside };
  }

  async list(options: { signal?: AbortSignal } = {}): Promise<Cluster[]> {
    return (await this.page(options)).items;
  }

  /** The only change a cluster takes: its name. */
  rename(id: string, name: string, options: { signal?: AbortSignal } = {}): Promise<Cluster> {
    return this.http.request({ method: "PATCH", path: `/v2/clusters/${encodeURIComponent(id)}`, body: { name }, schema: Cluster, signal: options.signal });
  }

  /** Deletes the cluster and terminates every member: 204. A 404 is returned to the caller. */
  async delete(id: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.http.request({ method: "DELETE", path: `/v2/clusters/${encodeURIComponent(id)}`, signal: options.signal });
  }

  /**
   * The member pods, in rank order. A member that cannot be read fails the read with its
   * violations: a cluster shown without one of its nodes would look short of it, or ready.
   */
  async members(id: string, options: { signal?: AbortSignal } = {}): Promise<Pod[]> {
    const path = `/v2/clusters/${encodeURIComponent(id)}/pods`;
    const response = await this.http.request({ method: "GET", path, schema: ListPodsResponse, signal: options.signal });
    if (response.setAside.length > 0) throw new ResponseValidationError({ method: "GET", path }, response.setAside.flatMap((item) => item.violations));
    return byRank(response.pods);
  }

  /** One cluster and its members (two reads). */
  async withMembers(id: string, options: { signal?: AbortSignal } = {}): Promise<ClusterWithMembers> {
    const [cluster, members] = await Promise.all([this.get(id, options), this.members(id, options)]);
    return { ...cluster, members };
  }

  /**
   * Every cluster with its members in two reads, whatever their number: the cluster list, and
   * the pod list with the members in it (`includeClusterPods`), joined by `joinMembers`.
   */
  async pageWithMembers(options: { signal?: AbortSignal } = {}): Promise<{ items: ClusterWithMembers[]; setAside: SetAside[] }> {
    const [clusters, pods] = await Promise.all([this.page(options), this.pods.page({ includeClusterPods: true, signal: options.signal })]);
    return joinMembers(clusters, pods);
  }
}

/**
 * Each cluster of a list with its members, from a pod list that includes them (grouped by
 * `cluster.id`). A member the pod list could not read would make its cluster look short of a
 * node: that cluster is set aside too, so its reader asks for it by id.
 */
export function joinMembers(clusters: { items: Cluster[]; setAside: SetAside[] }, pods: { items: Pod[]; setAside: SetAside[] }): { items: ClusterWithMembers[]; setAside: SetAside[] } {
  const byCluster = new Map<string, Pod[]>();
  for (const pod of pods.items) {
    if (!pod.cluster) continue;
    byCluster.set(pod.cluster.id, [...(byCluster.get(pod.cluster.id) ?? []), pod]);
  }
  // Short of what the service counts as provisioned (`pods.total`), not of `podCount`: a cluster
  // still placing its nodes is not suspect.
  const short = (cluster: Cluster) => pods.setAside.length > 0 && (byCluster.get(cluster.id)?.length ?? 0) < cluster.pods.total;
  const items: ClusterWithMembers[] = [];
  const setAside = [...clusters.setAside];
  clusters.items.forEach((cluster, index) => {
    if (short(cluster)) setAside.push({ index, id: cluster.id, name: cluster.name, violations: ["a member pod of this cluster could not be read from the pod list"] });
    else items.push({ ...cluster, members: byRank(byCluster.get(cluster.id) ?? []) });
  });
  return { items, setAside };
}
