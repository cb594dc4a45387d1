/**
 * The account's inventory for `compute ps`: one row per pod, cluster, sandbox, network volume or
 * serverless endpoint with what it costs and which stack owns it, and the total of what bills.
 * Pure: no requests, no printing. Volumes and endpoints report no rate (storage and workers
 * are billed, but the answers carry no price): they count as "of unknown cost". A cluster's
 * answer carries no price either, but its members' do: a cluster row costs what its members
 * cost, and its members are rows of their own nowhere else, so nothing is counted twice.
 *
 * Inputs are typed loosely on purpose: the public OpenAPI lets many Pod members be absent or
 * null (`gpu.count`, `env`, even `cost` on odd answers), so every member is read as optional
 * and a missing one becomes `null` in the row (a `-` cell in the table), never an exception.
 * An item the SDK could not read at all (set aside by its tolerant list) still gets a row: it
 * may be billing, and a listing of what costs money must not hide it.
 */
import { POD_ENDED_STATUSES, SANDBOX_ENDED_STATES, describeMemberStates, describeTag, splitLifetimeTag, untilWords } from "../contract";
import { ownerOf, splitMarkedName } from "../sdk/ownership";

export interface PodLike {
  id?: string | null;
  name?: string | null;
  status?: string | null;
  cost?: number | null;
  env?: Record<string, string> | null;
  gpu?: { id?: string | null; count?: number | null } | null;
  cpu?: { id?: string | null; vcpuCount?: number | null; memory?: number | null } | null;
  /** Set on a cluster member: its cluster, its rank (0 is the entry node), role and overlay address. */
  cluster?: { id?: string | null; rank?: number | null; role?: string | null; ip?: string | null } | null;
  dataCenterId?: string | null;
  createdAt?: string | null;
  /** When its current run started: a lifetime's duration counts from it. */
  startedAt?: string | null;
}

export interface ClusterLike {
  id?: string | null;
  /** The service name: the program's name, then the owner mark (as a volume's). */
  name?: string | null;
  compute?: { gpuTypeId?: string | null; gpuCountPerPod?: number | null; podCount?: number | null } | null;
  dataCenterId?: string | null;
  /** The service's summary of its members by status. */
  pods?: { total?: number | null; byStatus?: Record<string, number | null> | null } | null;
  createdAt?: string | null;
  /** Its member pods (`clusters.pageWithMembers()`); absent or null when they are not known. */
  members?: PodLike[] | null;
}

export interface SandboxLike {
  id?: string | null;
  name?: string | null;
  state?: string | null;
  terminationReason?: string | null;
  compute?: { vcpuCount?: number | null; memoryInGb?: number | null; costPerHr?: number | null } | null;
  labels?: Record<string, string> | null;
  dataCenterId?: string | null;
  createdAt?: string | null;
}

export interface VolumeLike {
  id?: string | null;
  name?: string | null;
  size?: number | null;
  type?: string | null;
  dataCenter?: string | null;
}

export interface EndpointLike {
  id?: string | null;
  name?: string | null;
  env?: Record<string, string> | null;
  gpu?: { pools?: string[] | null; count?: number | null } | null;
  cpu?: Array<{ id?: string | null; vcpuCount?: number | null }> | null;
  workers?: { min?: number | null; max?: number | null } | null;
  dataCenterIds?: string[] | null;
  createdAt?: string | null;
}

export interface Owner {
  /** `project/stack/name`, or the mark's key when the service cut the label off. */
  label: string;
  project: string | null;
  stack: string | null;
  name: string | null;
  /** `base-generation` of the owner mark: the same for every read of one resource generation. */
  key: string;
}

/** A member pod of a cluster row: what tells the nodes apart, and what each bills. */
export interface MemberRow {
  id: string | null;
  name: string | null;
  rank: number | null;
  role: string | null;
  /** Its address on the cluster's private overlay network. */
  ip: string | null;
  status: string | null;
  costPerHr: number | null;
  live: boolean;
}

export interface InventoryRow {
  kind: "pod" | "cluster" | "sandbox" | "volume" | "endpoint";
  id: string | null;
  name: string | null;
  /** Pod `status`, sandbox `state`, or a cluster's members by status (`3/4 RUNNING (1 STARTING)`). */
  status: string | null;
  terminationReason: string | null;
  /**
   * USD per hour as the service reports it (pod `cost`, sandbox `compute.costPerHr`, the sum of
   * a cluster's members' `cost`); null when it did not.
   */
  costPerHr: number | null;
  /**
   * Whether it may bill now: a pod not TERMINATED, a sandbox neither TERMINATED nor FAILED, a
   * cluster with such a member (or whose members are unknown).
   */
  live: boolean;
  /** GPU or compute summary: `1x NVIDIA H100 80GB HBM3`, `cpu3c 4 vCPU`, `2 vCPU 4 GB`, `4 × 8x NVIDIA H100 80GB HBM3`. */
  resources: string | null;
  /** Cluster id of a cluster member pod (managed through the cluster, not the pod endpoints). */
  cluster: string | null;
  dataCenterId: string | null;
  createdAt: string | null;
  /** Null: no owner mark, so no stack of this product created it ("unmanaged"), unless unreadable. */
  owner: Owner | null;
  /** Why the SDK could not read the item (then only id and name are known); null when it could. */
  unreadable: string[] | null;
  /** A cluster's member pods in rank order; null for other kinds and when they are not known. */
  members: MemberRow[] | null;
  /** Its lifetime as its name carries it (`stops in 2 h 10 m`, `expired … (idle)`); null without one. */
  lifetime: string | null;
}

/** An item of a list answer that the SDK set aside, as `page()` reports it. */
export interface SetAsideLike {
  id?: string;
  name?: string;
  violations: string[];
}

export interface InventoryTotal {
  /** Rows listed. */
  shown: number;
  /** Live rows with a rate above zero, and the sum of their rates. */
  billing: number;
  costPerHr: number;
  costPerDay: number;
  /** The same, for rows without an owner mark. */
  unmanagedBilling: number;
  unmanagedCostPerHr: number;
  /** Live rows whose rate the service did not report: not in the sums above. */
  unknownCost: number;
}

/**
 * States after which a resource bills no more (everything else may still bill), as the
 * contract groups them; widened to strings, since a row reads a status it may not know.
 */
const ENDED_POD: ReadonlySet<string> = POD_ENDED_STATUSES;
const ENDED_SANDBOX: ReadonlySet<string> = SANDBOX_ENDED_STATES;

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
const num = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

function owner(resource: { env?: Record<string, string> | null; labels?: Record<string, string> | null; name?: string }): Owner | null {
  const mark = ownerOf(resource);
  if (!mark) return null;
  // project and stack names have no `/`; a resource name may, so it takes the rest.
  const [project, stack, ...name] = mark.label.split("/");
  const complete = mark.label !== "" && stack !== undefined && name.length > 0;
  return {
    label: mark.label || mark.key,
    project: complete ? project! : null,
    stack: complete ? stack : null,
    name: complete ? name.join("/") : null,
    key: mark.key,
  };
}

function podResources(pod: PodLike): string | null {
  if (pod.gpu) {
    const id = text(pod.gpu.id);
    // The OpenAPI's GpuConfig gives `count` a default of 1: an answer without it means one GPU.
    return id ? `${num(pod.gpu.count) ?? 1}x ${id}` : null;
  }
  if (pod.cpu) {
    const parts = [text(pod.cpu.id), num(pod.cpu.vcpuCount) !== null ? `${pod.cpu.vcpuCount} vCPU` : null].filter((p) => p !== null);
    return parts.length > 0 ? parts.join(" ") : null;
  }
  return null;
}

function sandboxResources(sandbox: SandboxLike): string | null {
  const vcpu = num(sandbox.compute?.vcpuCount);
  const memory = num(sandbox.compute?.memoryInGb);
  const parts = [vcpu !== null ? `${vcpu} vCPU` : null, memory !== null ? `${memory} GB` : null].filter((p) => p !== null);
  return parts.length > 0 ? parts.join(" ") : null;
}

/**
 * A lifetime as a name carries it (contract/lifetime.ts), for people: `stops in 2 h 10 m`,
 * `idle: STOP under 10% GPU for 30 m (idle since …)`, `expired … (lifetime)`. `now`: the service's
 * clock; `runStart`: when the current run started (a duration counts from it). Only on what a
 * stack owns, the only thing a reaper acts on; what does not bill now shows its rule, not a countdown.
 */
export function lifetimeOf(serviceName: unknown, now: number, where: { owned: boolean; live: boolean; runStart?: number }): string | null {
  const tag = typeof serviceName === "string" ? splitLifetimeTag(serviceName).tag : undefined;
  if (!tag || !where.owned) return null;
  if (tag.expired) return `expired ${tag.expired.at} (${tag.expired.reason})`;
  const idle = tag.idle ? describeTag({ idle: tag.idle, other: [] }) + (tag.idleSince ? ` (idle since ${tag.idleSince})` : "") : undefined;
  const deadline = where.live ? untilWords(tag, now, where.runStart) : describeTag({ until: tag.until, then: tag.then, max: tag.max, other: [] }) || undefined;
  return [deadline, idle].filter(Boolean).join("; ") || null;
}

/** A name as the program wrote it: an owner mark and a lifetime tag are columns of their own. */
const programName = (serviceName: unknown) => (typeof serviceName === "string" ? splitMarkedName(serviceName).name : null);

export function podRow(pod: PodLike, now = Date.now()): InventoryRow {
  const status = text(pod.status);
  return {
    kind: "pod",
    id: text(pod.id),
    name: programName(pod.name),
    status,
    terminationReason: null,
    costPerHr: num(pod.cost),
    live: status === null || !ENDED_POD.has(status),
    resources: podResources(pod),
    cluster: text(pod.cluster?.id),
    dataCenterId: text(pod.dataCenterId),
    createdAt: text(pod.createdAt),
    owner: owner({ env: pod.env }),
    unreadable: null,
    members: null,
    lifetime: lifetimeOf(pod.name, now, { owned: owner({ env: pod.env }) !== null, live: status === "RUNNING" || status === "STARTING" || status === "PROVISIONING", runStart: typeof pod.startedAt === "string" ? Date.parse(pod.startedAt) : undefined }),
  };
}

export function sandboxRow(sandbox: SandboxLike): InventoryRow {
  const state = text(sandbox.state);
  return {
    kind: "sandbox",
    id: text(sandbox.id),
    name: text(sandbox.name),
    status: state,
    terminationReason: text(sandbox.terminationReason),
    costPerHr: num(sandbox.compute?.costPerHr),
    live: state === null || !ENDED_SANDBOX.has(state),
    resources: sandboxResources(sandbox),
    cluster: null,
    dataCenterId: text(sandbox.dataCenterId),
    createdAt: text(sandbox.createdAt),
    owner: owner({ labels: sandbox.labels }),
    unreadable: null,
    members: null,
    lifetime: null,
  };
}

/** A network volume: its name without the owner mark (which gives the OWNER column), size and tier. */
export function volumeRow(volume: VolumeLike): InventoryRow {
  const serviceName = text(volume.name);
  const size = num(volume.size);
  return {
    kind: "volume",
    id: text(volume.id),
    name: serviceName === null ? null : splitMarkedName(serviceName).name,
    status: null,
    terminationReason: null,
    costPerHr: null,
    live: true,
    resources: [size !== null ? `${size} GB` : null, text(volume.type)].filter((p) => p !== null).join(" ") || null,
    cluster: null,
    dataCenterId: text(volume.dataCenter),
    createdAt: null,
    owner: serviceName === null ? null : owner({ name: serviceName }),
    unreadable: null,
    members: null,
    lifetime: null,
  };
}

/** A cluster member: its pod's status and rate, read as a pod row's, and its place in the cluster. */
export function memberRow(pod: PodLike): MemberRow {
  const { id, name, status, costPerHr, live } = podRow(pod);
  return { id, name, rank: num(pod.cluster?.rank), role: text(pod.cluster?.role), ip: text(pod.cluster?.ip), status, costPerHr, live };
}

/** The summary's counts that are numbers: an odd answer's others are left out, not fatal. */
function statusCounts(byStatus: unknown): Record<string, number> {
  if (typeof byStatus !== "object" || byStatus === null) return {};
  return Object.fromEntries(Object.entries(byStatus).filter((entry): entry is [string, number] => num(entry[1]) !== null));
}

/** `3/4 RUNNING (1 STARTING)` from the service's summary; null when the answer has none. */
function memberStates(summary: ClusterLike["pods"]): string | null {
  if (!summary) return null;
  const byStatus = statusCounts(summary.byStatus);
  const total = num(summary.total) ?? Object.values(byStatus).reduce((acc, count) => acc + count, 0);
  return describeMemberStates(byStatus, total);
}

/**
 * Whether a cluster may bill: while a member may, by the member list or by the summary (two
 * reads, and a member just created or ended shows in one before the other), or while its
 * members are unknown.
 */
function clusterLive(summary: ClusterLike["pods"], members: MemberRow[] | null): boolean {
  if (members === null) return true;
  const counted = Object.entries(statusCounts(summary?.byStatus)).some(([status, count]) => count > 0 && !ENDED_POD.has(status));
  return counted || members.some((member) => member.live);
}

/**
 * A cluster's rate: what its members bill, since the cluster answer carries no price. Null when
 * no member reports a rate: the cluster is then of unknown cost, not free.
 */
function membersCost(members: MemberRow[] | null): number | null {
  if (members === null || members.every((member) => member.costPerHr === null)) return null;
  return sumOf(billingOf(members));
}

/** `4 × 8x NVIDIA H100 80GB HBM3`: nodes × GPUs per node; a count an odd answer lacks is left out. */
function clusterResources(compute: ClusterLike["compute"]): string | null {
  const gpu = text(compute?.gpuTypeId);
  if (gpu === null) return null;
  const nodes = num(compute?.podCount);
  const perNode = num(compute?.gpuCountPerPod);
  return `${nodes === null ? "" : `${nodes} × `}${perNode === null ? "" : `${perNode}x `}${gpu}`;
}

/**
 * A cluster as one row: its members by status, their summed rate, its name without the owner
 * mark (which gives the OWNER column, as for a volume), and its members beneath it.
 */
export function clusterRow(cluster: ClusterLike, now = Date.now()): InventoryRow {
  const serviceName = text(cluster.name);
  const members = Array.isArray(cluster.members) ? cluster.members.map(memberRow) : null;
  return {
    kind: "cluster",
    id: text(cluster.id),
    name: serviceName === null ? null : splitMarkedName(serviceName).name,
    status: memberStates(cluster.pods),
    terminationReason: null,
    costPerHr: membersCost(members),
    live: clusterLive(cluster.pods, members),
    resources: clusterResources(cluster.compute),
    cluster: null,
    dataCenterId: text(cluster.dataCenterId),
    createdAt: text(cluster.createdAt),
    owner: serviceName === null ? null : owner({ name: serviceName }),
    unreadable: null,
    members,
    lifetime: lifetimeOf(cluster.name, now, { owned: serviceName !== null && owner({ name: serviceName }) !== null, live: clusterLive(cluster.pods, members) }),
  };
}

/**
 * The pods that are not members of a listed cluster: a member is counted in its cluster's row,
 * so it must not be counted again as a pod, whichever list it also came in.
 */
export function outsideClusters<P extends PodLike>(pods: P[], clusters: ClusterLike[]): P[] {
  const listed = new Set(clusters.map((cluster) => text(cluster.id)).filter((id) => id !== null));
  return pods.filter((pod) => {
    const cluster = text(pod.cluster?.id);
    return cluster === null || !listed.has(cluster);
  });
}

/** A serverless endpoint: its workers' range as its status, its GPU pools or CPU flavors. */
export function endpointRow(endpoint: EndpointLike, now = Date.now()): InventoryRow {
  const min = num(endpoint.workers?.min);
  const max = num(endpoint.workers?.max);
  const compute = endpoint.cpu
    ? endpoint.cpu.map((c) => [text(c.id), num(c.vcpuCount) !== null ? `${c.vcpuCount} vCPU` : null].filter((p) => p !== null).join(" ")).join(", ")
    : (endpoint.gpu?.pools ?? []).map((pool) => `${num(endpoint.gpu?.count) ?? 1}x ${pool}`).join(", ");
  return {
    kind: "endpoint",
    id: text(endpoint.id),
    name: programName(endpoint.name),
    status: min !== null && max !== null ? `${min}-${max} workers` : null,
    terminationReason: null,
    costPerHr: null,
    live: true,
    resources: compute || null,
    cluster: null,
    dataCenterId: (endpoint.dataCenterIds ?? []).join(", ") || null,
    createdAt: text(endpoint.createdAt),
    owner: owner({ env: endpoint.env }),
    unreadable: null,
    members: null,
    lifetime: lifetimeOf(endpoint.name, now, { owned: owner({ env: endpoint.env }) !== null, live: (max ?? 1) > 0 }),
  };
}

/**
 * A row for an item the SDK could not read: only its id and name are known. `live` is what the
 * list it came from says (the terminated-sandboxes list holds only ended ones); otherwise it
 * is taken as possibly billing, of unknown cost.
 */
export function unreadableRow(kind: InventoryRow["kind"], item: SetAsideLike, live = true): InventoryRow {
  return {
    kind,
    id: text(item.id),
    name: text(item.name),
    status: null,
    terminationReason: null,
    costPerHr: null,
    live,
    resources: null,
    cluster: null,
    dataCenterId: null,
    createdAt: null,
    owner: null,
    unreadable: item.violations,
    members: null,
    lifetime: null,
  };
}

export interface RowFilter {
  /**
   * Also rows that bill no more (terminated pods, terminated and failed sandboxes, clusters
   * without a member that may bill), and a cluster's members that bill no more.
   */
  all?: boolean;
  /** Only rows without an owner mark (unreadable rows included: nothing shows they have one). */
  unmanaged?: boolean;
  /** Only rows whose owner is this `project/stack`. */
  stack?: string;
}

export function selectRows(rows: InventoryRow[], filter: RowFilter): InventoryRow[] {
  return rows
    .filter(
      (row) =>
        (filter.all || row.live) &&
        (!filter.unmanaged || row.owner === null) &&
        (filter.stack === undefined || (row.owner !== null && row.owner.project !== null && `${row.owner.project}/${row.owner.stack}` === filter.stack)),
    )
    .map((row) => (filter.all || row.members === null ? row : { ...row, members: row.members.filter((member) => member.live) }));
}

/** Rounds sums to 1/10000 of a dollar: rates are quoted to four decimals, and float sums drift. */
const toRate = (value: number) => Math.round(value * 10000) / 10000;

type Priced = { live: boolean; costPerHr: number | null };

/**
 * What bills now: a live row (or cluster member) with a rate above zero. A pod's `cost` is
 * already 0 while it is stopped (the service's rule), so nothing else needs asking.
 */
function billingOf<R extends Priced>(rows: R[]): R[] {
  return rows.filter((row) => row.live && (row.costPerHr ?? 0) > 0);
}

const sumOf = (rows: Priced[]) => toRate(rows.reduce((acc, row) => acc + (row.costPerHr ?? 0), 0));

export function totalOf(rows: InventoryRow[]): InventoryTotal {
  const billing = billingOf(rows);
  const unmanaged = billing.filter((row) => row.owner === null);
  const costPerHr = sumOf(billing);
  return {
    shown: rows.length,
    billing: billing.length,
    costPerHr,
    costPerDay: toRate(costPerHr * 24),
    unmanagedBilling: unmanaged.length,
    unmanagedCostPerHr: sumOf(unmanaged),
    unknownCost: rows.filter((row) => row.live && row.costPerHr === null).length,
  };
}

/** `$2.99`, `$0.078`, `$0.0812`: two decimals at least, up to the four rates are quoted in. */
export function money(value: number): string {
  return `$${value.toFixed(4).replace(/(\.\d\d\d*?)0+$/, "$1")}`;
}

/** The line under the table: what bills, per hour and per day, and how much of it is unmanaged. */
export function totalLine(total: InventoryTotal): string {
  const parts = [
    `Total: ${total.shown} shown, ${total.billing} billing ${money(total.costPerHr)}/hr ($${total.costPerDay.toFixed(2)}/day)`,
    `${total.unmanagedBilling} of them unmanaged (${money(total.unmanagedCostPerHr)}/hr)`,
  ];
  if (total.unknownCost > 0) parts.push(`${total.unknownCost} of unknown cost (not counted)`);
  return parts.join(", ");
}
