/**
 * The account's inventory for `compute ps`: one row per pod, sandbox, network volume or
 * serverless endpoint with what it costs and which stack owns it, and the total of what bills.
 * Pure: no requests, no printing. Volumes and endpoints report no rate (storage and workers
 * are billed, but the answers carry no price): they count as "of unknown cost".
 *
 * Inputs are typed loosely on purpose: the public OpenAPI lets many Pod members be absent or
 * null (`gpu.count`, `env`, even `cost` on odd answers), so every member is read as optional
 * and a missing one becomes `null` in the row (a `-` cell in the table), never an exception.
 * An item the SDK could not read at all (set aside by its tolerant list) still gets a row: it
 * may be billing, and a listing of what costs money must not hide it.
 */
import { POD_ENDED_STATUSES, SANDBOX_ENDED_STATES } from "../contract";
import { ownerOf, splitMarkedName } from "../sdk/ownership";

export interface PodLike {
  id?: string | null;
  name?: string | null;
  status?: string | null;
  cost?: number | null;
  env?: Record<string, string> | null;
  gpu?: { id?: string | null; count?: number | null } | null;
  cpu?: { id?: string | null; vcpuCount?: number | null; memory?: number | null } | null;
  cluster?: { id?: string | null } | null;
  dataCenterId?: string | null;
  createdAt?: string | null;
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

export interface InventoryRow {
  kind: "pod" | "sandbox" | "volume" | "endpoint";
  id: string | null;
  name: string | null;
  /** Pod `status` or sandbox `state`. */
  status: string | null;
  terminationReason: string | null;
  /** USD per hour as the service reports it (pod `cost`, sandbox `compute.costPerHr`); null when it did not. */
  costPerHr: number | null;
  /** Whether it may bill now: a pod not TERMINATED, a sandbox neither TERMINATED nor FAILED. */
  live: boolean;
  /** GPU or compute summary: `1x NVIDIA H100 80GB HBM3`, `cpu3c 4 vCPU`, `2 vCPU 4 GB`. */
  resources: string | null;
  /** Cluster id of a cluster member pod (managed through the cluster, not the pod endpoints). */
  cluster: string | null;
  dataCenterId: string | null;
  createdAt: string | null;
  /** Null: no owner mark, so no stack of this product created it ("unmanaged"), unless unreadable. */
  owner: Owner | null;
  /** Why the SDK could not read the item (then only id and name are known); null when it could. */
  unreadable: string[] | null;
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

export function podRow(pod: PodLike): InventoryRow {
  const status = text(pod.status);
  return {
    kind: "pod",
    id: text(pod.id),
    name: text(pod.name),
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
  };
}

/** A serverless endpoint: its workers' range as its status, its GPU pools or CPU flavors. */
export function endpointRow(endpoint: EndpointLike): InventoryRow {
  const min = num(endpoint.workers?.min);
  const max = num(endpoint.workers?.max);
  const compute = endpoint.cpu
    ? endpoint.cpu.map((c) => [text(c.id), num(c.vcpuCount) !== null ? `${c.vcpuCount} vCPU` : null].filter((p) => p !== null).join(" ")).join(", ")
    : (endpoint.gpu?.pools ?? []).map((pool) => `${num(endpoint.gpu?.count) ?? 1}x ${pool}`).join(", ");
  return {
    kind: "endpoint",
    id: text(endpoint.id),
    name: text(endpoint.name),
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
  };
}

export interface RowFilter {
  /** Also rows that bill no more (terminated pods, terminated and failed sandboxes). */
  all?: boolean;
  /** Only rows without an owner mark (unreadable rows included: nothing shows they have one). */
  unmanaged?: boolean;
  /** Only rows whose owner is this `project/stack`. */
  stack?: string;
}

export function selectRows(rows: InventoryRow[], filter: RowFilter): InventoryRow[] {
  return rows.filter(
    (row) =>
      (filter.all || row.live) &&
      (!filter.unmanaged || row.owner === null) &&
      (filter.stack === undefined || (row.owner !== null && row.owner.project !== null && `${row.owner.project}/${row.owner.stack}` === filter.stack)),
  );
}

/** Rounds sums to 1/10000 of a dollar: rates are quoted to four decimals, and float sums drift. */
const toRate = (value: number) => Math.round(value * 10000) / 10000;

export function totalOf(rows: InventoryRow[]): InventoryTotal {
  // A pod's `cost` is already 0 while it is stopped (the service's rule), so "billing" is
  // simply a live row with a rate above zero.
  const billing = rows.filter((row) => row.live && (row.costPerHr ?? 0) > 0);
  const unmanaged = billing.filter((row) => row.owner === null);
  const sum = (list: InventoryRow[]) => toRate(list.reduce((acc, row) => acc + (row.costPerHr ?? 0), 0));
  const costPerHr = sum(billing);
  return {
    shown: rows.length,
    billing: billing.length,
    costPerHr,
    costPerDay: toRate(costPerHr * 24),
    unmanagedBilling: unmanaged.length,
    unmanagedCostPerHr: sum(unmanaged),
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
