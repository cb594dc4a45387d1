/**
 * A pod as stored: its record and one `PodRun` per start of its container. Plain data, read by
 * the lifecycle (lifecycle.ts), the log timeline (logs.ts), the store, the rules and the view.
 */
import type { Cloud, ClusterRole, Mounts } from "../../contract";

export type RunEnd = "stop" | "exit" | "error" | "restart" | "terminate";

/** How a pod's services behave (control plane: `PUT /_emulator/pods/{id}/service`). */
export const SERVICE_MODES = ["normal", "never", "unavailable"] as const;
export type ServiceMode = (typeof SERVICE_MODES)[number];

/** What the control plane set for a pod's services. In memory only: the store's snapshot leaves it out. */
export interface ServiceSettings {
  /** `never`: the services never come up; `unavailable`: they come up, but HTTP answers 503. */
  mode: ServiceMode;
  /** Overrides the run's `serviceStartMs` (a slow service); null: the run's timing. */
  delayMs: number | null;
  /** Emulator-clock instant the settings were set: a service they bring up comes up no earlier. */
  since: number;
}

/** One point of a GPU utilisation curve: `util` holds from `afterSeconds` after the setting was made until the next point. */
export interface GpuUtilizationPoint {
  afterSeconds: number;
  util: number;
}

/** How a GPU pod's utilisation reads (control plane: `PUT /_emulator/pods/{id}/gpu-utilization`): a constant, or a step curve. */
export type GpuUtilizationSpec = { util: number } | { curve: GpuUtilizationPoint[] };

/** What the control plane set for a pod's GPU utilisation. In memory only, as the service settings: the store's snapshot leaves it out. */
export interface GpuUtilizationSettings {
  spec: GpuUtilizationSpec;
  /** Emulator-clock instant the setting was made: the curve's `afterSeconds` count from it. */
  since: number;
}

export interface PodRun {
  requestedAt: number;
  provisioningMs: number;
  startingMs: number;
  logIntervalMs: number;
  /** The services on its ports answer this long after RUNNING; absent in state files from before services answered (0). */
  serviceStartMs?: number;
  image: string;
  command: string[];
  /** The pod's `ports` when the run started (absent in older state files: the pod's current ones). */
  ports?: string[];
  /** The container will fail as it starts (control plane), ending in ERROR. */
  failStart: boolean;
  endedAt?: number;
  /** Microsecond instant of the end, after every line already visible (see endRun). */
  endUs?: number;
  end?: RunEnd;
  /** Why it ended, for the closing log line. */
  note?: string;
}

/** A member pod's `cluster` block, as answered (a type alias: the view's answer is a plain JSON record). */
export type ClusterBlock = {
  id: string;
  /** Null until assigned; 0 is the entry node. */
  rank: number | null;
  role?: ClusterRole;
  /** Its address on the cluster's overlay network, once assigned. */
  ip?: string;
};

/** A member pod's place in its cluster as stored: what it is assigned, and from when it shows. */
export type ClusterMembership = ClusterBlock & {
  /** Rank, role and address read as unassigned before this instant (the cluster assigns them during provisioning); fixture members have none. */
  assignedAt?: number;
};

export interface PodRecord {
  id: string;
  accountId: string;
  name: string;
  image: string;
  args: string;
  disk: number;
  /** As returned: template env, body env and the injected variables. */
  env: Record<string, string>;
  /** PUBLIC_KEY / JUPYTER_PASSWORD injected at create; re-applied when a PATCH replaces env. */
  injected: Record<string, string>;
  ports: string[];
  registry: string | null;
  mounts: Mounts;
  gpu?: { id: string; count: number; vcpuCount: number; memory: number };
  cpu?: { id: string; vcpuCount: number; memory: number };
  cloud: Cloud;
  dataCenterId: string;
  /** The machine the pod is pinned to (a start after a stop comes back to it). */
  hostId: string;
  cudaVersion: string | null;
  /** startSsh was set and a PUBLIC_KEY ended up in env. */
  sshEnabled: boolean;
  /** Requested global networking; takes effect at the next start. */
  globalNetworking: boolean;
  /** Global-network address of the current run, or null. */
  globalIp: string | null;
  locked: boolean;
  costPerHour: number;
  /** Whether the pod currently holds its GPUs / vCPUs on the host. */
  reserved: boolean;
  createdAt: number;
  cluster?: ClusterMembership;
  runs: PodRun[];
  terminatedAt?: number;
  /** After this instant a terminated pod is gone (404). */
  goneAt?: number;
  /** The next start fails (control plane `fail-start` on a pod that is not starting). */
  failNextStart: boolean;
  /** Set by the control plane; absent: the services come up `serviceStartMs` after RUNNING and answer normally. */
  service?: ServiceSettings;
  /** Set by the control plane; absent: every GPU reads a pseudo-random utilisation (view.ts). */
  gpuUtilization?: GpuUtilizationSettings;
}

/** The instant a run becomes RUNNING (or fails to, for a failed start). */
export const runningAt = (run: PodRun) => run.requestedAt + run.provisioningMs + run.startingMs;
