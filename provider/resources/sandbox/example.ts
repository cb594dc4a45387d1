/**
 * The smallest Sandbox a program can declare: an image and the smallest compute. The generic
 * tests (test/provider/every-kind.test.ts) check, create, read and delete it. Types only: a leaf module.
 */
import type { ExampleChange, InputValues } from "../definition";
import type { SANDBOX_INPUTS } from "./inputs";

export const EXAMPLE = {
  image: "python:3.12-slim",
  compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 },
} as const satisfies InputValues<typeof SANDBOX_INPUTS>;

/**
 * A change of every input the table holds (ExampleChange): each row is performed through the
 * provider protocol by the generic table, from EXAMPLE (or EXAMPLE with `from`).
 */
export const CHANGES = {
  name: { to: "renamed-sandbox" },
  image: { to: "python:3.13-slim" },
  templateId: { to: "tpl_ubuntu" },
  compute: { to: { vcpuCount: 2, memoryInGb: 2, containerDiskInGb: 1 } },
  dataCenterIds: { to: ["US-TX-3"] },
  ports: { to: ["8000/http"] },
  env: { to: { MODE: "changed" } },
  egressPolicy: { to: { mode: "DENY_ALL" } },
  idleTimeoutSeconds: { to: 1200 },
  maxLifetimeSeconds: { to: 7200, does: "update" },
  labels: { to: { team: "ml" } },
  readiness: { to: { logLine: "." } },
  readyTimeoutSeconds: { to: 300 },
  adoptSandboxId: { to: "sb-adopted-elsewhere" },
} as const satisfies Partial<Record<keyof typeof SANDBOX_INPUTS, ExampleChange>>;
