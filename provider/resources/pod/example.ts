/**
 * The smallest Pod a program can declare: a 2-vCPU CPU pod (no GPU to find). The generic tests
 * (test/provider/every-kind.test.ts) check, create, read and delete it against the emulator.
 * Types only: a leaf module.
 */
import type { ExampleChange, InputValues } from "../definition";
import type { POD_INPUTS } from "./inputs";

export const EXAMPLE = {
  image: "alpine",
  cpu: { id: "cpu3c", vcpuCount: 2 },
} as const satisfies InputValues<typeof POD_INPUTS>;

/**
 * A change of every input the table holds (ExampleChange): each row is performed through the
 * provider protocol by the generic table, from EXAMPLE (or EXAMPLE with `from`).
 */
export const CHANGES = {
  name: { to: "renamed-pod" },
  image: { to: "alpine:3.20" },
  templateId: { to: "tpl_ubuntu" },
  args: { to: "sleep infinity" },
  // On pods of their own: with the `args` of the row before, another command is refused at check.
  cmd: { from: {}, to: ["sleep", "3600"] },
  entrypoint: { from: {}, to: ["/bin/sh", "-c"] },
  disk: { to: 30 },
  env: { to: { MODE: "changed" } },
  ports: { to: ["8080/http"] },
  registry: { to: "reg_dev_ghcr" },
  gpu: { from: { cpu: undefined, gpu: { id: "NVIDIA RTX A5000" } }, to: { id: "NVIDIA RTX A5000", count: 2 }, does: "replace" },
  cpu: { to: { id: "cpu3c", vcpuCount: 4 } },
  cloud: { from: { cpu: undefined, gpu: { id: "NVIDIA GeForce RTX 4090" } }, to: "COMMUNITY" },
  dataCenterIds: { to: ["US-TX-3"] },
  globalNetworking: { from: { ...{ cpu: undefined, gpu: { id: "NVIDIA RTX A5000" } }, dataCenterIds: ["US-TX-3"] }, to: true },
  mounts: { to: { network: [{ volumeId: "vol_dev_tx", path: "/data" }] }, does: "replace" },
  startSsh: { to: true },
  startJupyter: { to: true },
  // On a pod of their own: a locked or stopped pod is not one the other rows change.
  locked: { from: {}, to: true },
  desiredState: { from: {}, to: "STOPPED" },
  // A list that still allows where the pod runs: recorded, the pod not moved.
  placement: { from: { dataCenterIds: ["US-TX-3"] }, to: [{ dataCenterId: "US-TX-3" }], does: "update" },
  readiness: { to: { logLine: "." } },
  placementStrategy: { to: "CHEAPEST" },
  // A GPU pod's: a CPU pod has one price.
  maxCostPerHour: { from: { cpu: undefined, gpu: { id: "NVIDIA RTX A5000" } }, to: 100 },
  waitForCapacity: { to: { timeoutSeconds: 600 } },
  recovery: { to: "REPLACE" },
  lifetime: { to: { maxDurationSeconds: 86400, action: "STOP" } },
  idle: { from: { cpu: undefined, gpu: { id: "NVIDIA RTX A5000" } }, to: { gpuUtilBelowPercent: 5, forSeconds: 3600, action: "STOP" } },
  readyTimeoutSeconds: { to: 300 },
} as const satisfies Partial<Record<keyof typeof POD_INPUTS, ExampleChange>>;
