/** A sandbox as stored, and what its state derives to at an instant (store.ts derives it). Plain data. */
import type { SandboxState, TerminationReason } from "../../contract";

export interface Final {
  state: "TERMINATED" | "FAILED";
  reason: TerminationReason;
  at: number;
  endUs: number;
}

export interface SandboxRecord {
  id: string;
  accountId: string;
  name: string;
  templateId: string | null;
  image: string;
  env: Record<string, string>;
  dataCenterId: string;
  compute: { vcpuCount: number; memoryInGb: number; containerDiskInGb: number; costPerHr: number };
  ports: string[];
  egressPolicy: { mode: string; allow: string[] };
  idleTimeoutSeconds: number;
  maxLifetimeSeconds: number;
  labels: Record<string, string>;
  createdAt: number;
  creatingMs: number;
  logIntervalMs: number;
  /** The container will fail to start (control plane). */
  failStart: boolean;
  /** Last recorded activity (container start, log stream open/close). */
  lastActivityAt: number;
  updatedAt: number;
  final?: Final;
}

export interface Derived {
  state: SandboxState;
  startedAt: number | null;
  lastActivityAt: number;
  idleExpiresAt: number;
  expiresAt: number;
  final?: Final;
}
