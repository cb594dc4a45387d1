/**
 * Clusters as stored, and what happens to them: create (the members, as pods of the pods store),
 * rename, delete (every member terminated as a pod DELETE would). The cluster holds no capacity
 * and no status of its own: its members do, and its view is read off them (view.ts). Decisions
 * 37 and 38 of docs/api-contract.md.
 */
import { clusterRole, type ClusterCompute, type ClusterType } from "../../contract";
import type { AccountRecord } from "../accounts/store";
import type { ClusterFixture, Fixture, PodFixture } from "../fixture";
import { randomId } from "../ids";
import type { Timings } from "../options";
import type { PodRecord } from "../pods/record";
import type { Pods } from "../pods/store";
import type { PodView } from "../pods/view";
import { TableModule } from "../records";
import { cidrOf, freeCidr, memberAddress, overlay, type Overlay } from "./network";
import type { ClusterPlan } from "./rules";

export interface ClusterRecord {
  id: string;
  accountId: string;
  name: string;
  type: ClusterType;
  /** Fixed at create; a fixture cluster's is read off its members. */
  compute: ClusterCompute;
  dataCenterId: string;
  /** The member pods in member order: `<cluster name>-<index>`, of rank `index`. */
  memberIds: string[];
  network: Overlay;
  /** When the members' ranks and addresses and the VXLAN are assigned (halfway through provisioning); 0 for fixture clusters. */
  provisionedAt: number;
  createdAt: number;
}

/** What the cluster store uses of the world: the pods its members are, the stage timings, the fail-next switch. */
export interface ClustersWorld {
  readonly pods: Pods;
  readonly timings: Timings;
  takeFailNext(kind: "pod"): boolean;
}

/** Rank order, unassigned (null) last; the fixture lists members in any order. */
const byFixtureRank = (a: PodFixture, b: PodFixture) => (a.cluster?.rank ?? Infinity) - (b.cluster?.rank ?? Infinity) || 0;

export class Clusters extends TableModule<ClusterRecord> {
  constructor(private readonly world: ClustersWorld) {
    super("cluster");
  }

  // ---- state ---------------------------------------------------------------------------------

  /** Fixture clusters, read off their member pods (reset after the pods, which the registry orders). */
  protected override seed(fixture: Fixture): ClusterRecord[] {
    const pods = new Map(this.world.pods.all().map((p) => [p.id, p]));
    const out: ClusterRecord[] = [];
    for (const seed of fixture.clusters) out.push(this.fromFixture(seed, fixture, pods, out));
    return out;
  }

  private fromFixture(seed: ClusterFixture, fixture: Fixture, pods: Map<string, PodRecord>, earlier: ClusterRecord[]): ClusterRecord {
    // The fixture check (fixture.ts) guarantees GPU members of one shape in one data center.
    const members = fixture.pods.filter((p) => p.cluster?.id === seed.id).sort(byFixtureRank);
    const first = members[0];
    const named = members.map((p) => p.cluster?.ip && cidrOf(p.cluster.ip)).find((cidr) => cidr);
    const cidr = named ?? freeCidr(earlier.filter((c) => c.accountId === seed.accountId).map((c) => c.network.cidr));
    if (cidr === undefined) throw new Error(`fixture cluster ${seed.id}: its account has no overlay network left`);
    const createdAt = Math.min(...members.map((p) => pods.get(p.id)?.createdAt ?? Infinity));
    return {
      id: seed.id,
      accountId: seed.accountId,
      name: seed.name,
      type: seed.type,
      compute: { gpuTypeId: first.gpu!.id, gpuCountPerPod: first.gpu!.count, podCount: members.length },
      dataCenterId: first.dataCenterId,
      memberIds: members.map((p) => p.id),
      network: overlay(seed.id, cidr),
      provisionedAt: 0,
      createdAt: Number.isFinite(createdAt) ? createdAt : 0,
    };
  }

  /** State files from before clusters had a slice start from the fixture's (their member pods are in the pods slice). */
  override restore(slice: unknown, fixture: Fixture): void {
    this.records.load(slice === undefined ? this.seed(fixture) : (slice as ClusterRecord[]));
  }

  // ---- reading -------------------------------------------------------------------------------

  /** A cluster of this account (another account's is the same 404). */
  find(accountId: string, id: string): ClusterRecord {
    return this.records.owned(accountId, id);
  }

  list(accountId: string): ClusterRecord[] {
    return this.records.all().filter((c) => c.accountId === accountId);
  }

  /** The overlay networks the account's clusters hold (rules.ts picks a free one). */
  cidrsOf(accountId: string): string[] {
    return this.list(accountId).map((c) => c.network.cidr);
  }

  /** The members that still exist, settled, in member order. */
  members(cluster: ClusterRecord, now: number): PodRecord[] {
    const out: PodRecord[] = [];
    for (const id of cluster.memberIds) {
      const pod = this.world.pods.any(id, now);
      if (pod) out.push(pod);
    }
    return out;
  }

  /** A member's wire form, as the pods store answers it (its running ports published). */
  memberView(pod: PodRecord, now: number): PodView {
    return this.world.pods.view(pod, now);
  }

  // ---- changes -------------------------------------------------------------------------------

  /**
   * The cluster and its members, each on the machine the plan chose. Ranks are the member
   * indexes, shown from `provisionedAt` on with their role and overlay address. The control
   * plane's fail-next switch is consumed once, by the whole cluster: its last member fails as
   * it starts.
   */
  create(account: AccountRecord, body: { name: string; type: ClusterType; compute: ClusterCompute }, plan: ClusterPlan, now: number): ClusterRecord {
    const id = randomId(12);
    const provisionedAt = now + Math.floor(this.world.timings.podProvisioningMs / 2);
    const failLast = this.world.takeFailNext("pod");
    const last = plan.members.length - 1;
    const memberIds = plan.members.map((member, rank) => {
      const role = clusterRole(body.type, rank);
      const membership = { id, rank, ...(role ? { role } : {}), ip: memberAddress(plan.cidr, rank), assignedAt: provisionedAt };
      return this.world.pods.createMember(account, `${body.name}-${rank}`, member, membership, failLast && rank === last, now).id;
    });
    return this.records.add({
      id,
      accountId: account.id,
      name: body.name,
      type: body.type,
      compute: { ...body.compute },
      dataCenterId: plan.dataCenterId,
      memberIds,
      network: overlay(id, plan.cidr),
      provisionedAt,
      createdAt: now,
    });
  }

  /** PATCH: the name only; members keep theirs. */
  rename(cluster: ClusterRecord, name: string): void {
    cluster.name = name;
  }

  /** DELETE: the cluster is gone at once; its members end as deleted pods do (TERMINATED, then 404), giving their GPUs back. */
  remove(cluster: ClusterRecord, now: number): void {
    for (const pod of this.members(cluster, now)) this.world.pods.endMember(pod, now);
    this.records.delete(cluster);
  }
}
