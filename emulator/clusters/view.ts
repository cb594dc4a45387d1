/**
 * Cluster record → wire shape (contract `Cluster`, reference OpenAPI `Cluster`). Everything but
 * the identity, the compute and the overlay is read off the members at each read: the summary
 * by status, the primary (rank 0) and its SSH endpoint, the VXLAN once provisioned.
 */
import type { z } from "zod";
import type { Cluster, PodStatus } from "../../contract";
import { clusterMembership, podStatus } from "../pods/lifecycle";
import type { PodRecord } from "../pods/record";
import type { PodView } from "../pods/view";
import { iso } from "../time";
import type { ClusterRecord } from "./store";

export type ClusterView = z.input<typeof Cluster>;
type PrimaryView = NonNullable<ClusterView["primary"]>;

/** The members by rank as it reads now, unassigned ranks last; member order among equals. */
export function byRank(members: PodRecord[], now: number): PodRecord[] {
  const rank = (pod: PodRecord) => clusterMembership(pod, now)?.rank ?? Number.MAX_SAFE_INTEGER;
  return [...members].sort((a, b) => rank(a) - rank(b));
}

/** A member's wire form (the pods store's `view`: its running ports are real listeners). */
export type MemberView = (pod: PodRecord) => PodView;

/** The primary's `host:port`: the public mapping of its 22/tcp, which a pod has only while RUNNING (its runtime). */
function sshEndpoint(pod: PodRecord, viewOf: MemberView): string | undefined {
  const mapping = viewOf(pod).runtime?.ports?.find((p) => p.private === 22 && p.type === "tcp");
  return mapping?.ip && typeof mapping.public === "number" ? `${mapping.ip}:${mapping.public}` : undefined;
}

function primaryView(pod: PodRecord, now: number, viewOf: MemberView): PrimaryView {
  const endpoint = sshEndpoint(pod, viewOf);
  // Members come from the store's live lookup, so none is GONE.
  return { podId: pod.id, status: podStatus(pod, now) as PodStatus, ...(endpoint ? { sshEndpoint: endpoint } : {}) };
}

/** The wire form of a cluster; `members` are its live members in member order (store.members), `viewOf` reads one. */
export function clusterView(cluster: ClusterRecord, members: PodRecord[], now: number, viewOf: MemberView): ClusterView {
  const byStatus: Record<string, number> = {};
  for (const pod of members) {
    const status = podStatus(pod, now);
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
  // Rank 0 is the entry node; before ranks are assigned, the first member.
  const primary = byRank(members, now)[0];
  const { cidr, vxlanId, vxlanPort } = cluster.network;
  return {
    id: cluster.id,
    name: cluster.name,
    type: cluster.type,
    compute: { ...cluster.compute },
    dataCenterId: cluster.dataCenterId,
    pods: { total: members.length, byStatus },
    network: now >= cluster.provisionedAt ? { cidr, vxlanId, vxlanPort } : { cidr },
    ...(primary ? { primary: primaryView(primary, now, viewOf) } : {}),
    createdAt: iso(cluster.createdAt),
  };
}
