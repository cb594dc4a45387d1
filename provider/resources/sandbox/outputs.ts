/** The Sandbox's outputs, listed once (see provider/resources/pod/outputs.ts). */
import type { OutputList } from "../definition";
import { READINESS_OUTPUTS } from "../readiness";

export const SANDBOX_OUTPUTS = {
  sandboxId: { type: "string", doc: "The service's sandbox id (also the resource id)." },
  state: { type: "string", doc: "The sandbox's state when last read (`RUNNING`, …)." },
  dataCenterId: { type: "string", doc: "Data center the sandbox runs in." },
  appliedIdleTimeoutSeconds: { type: "number", doc: "The idle timeout the service applied (after clamping)." },
  appliedMaxLifetimeSeconds: { type: "number", doc: "The maximum lifetime the service applied." },
  costPerHour: { type: "number", doc: "Cost in USD per hour." },
  vcpuCount: { type: "number", doc: "vCPUs the sandbox has." },
  memoryInGb: { type: "number", doc: "Memory the sandbox has, in GB." },
  containerDiskInGb: { type: "number", doc: "Container disk the sandbox has, in GB." },
  createdAt: { type: "string", doc: "When the sandbox was created (ISO 8601)." },
  startedAt: { type: "string", nullable: true, doc: "When the sandbox started (ISO 8601)." },
  lastActivityAt: { type: "string", doc: "The sandbox's last activity (ISO 8601); the idle timeout counts from it." },
  idleExpiresAt: { type: "string", doc: "When the sandbox ends if it stays idle (ISO 8601)." },
  expiresAt: { type: "string", doc: "When the sandbox ends at the latest: its maximum lifetime (ISO 8601)." },
  ...READINESS_OUTPUTS,
} as const satisfies OutputList;

