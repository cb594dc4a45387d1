/**
 * The smallest Cluster a program can declare: two nodes of one GPU each (a cluster has at least
 * two), of a type offered on SECURE, and an image. The generic tests
 * (test/provider/every-kind.test.ts) check, create, read and delete it. Types only: a leaf module.
 */
import type { ExampleChange, InputValues } from "../definition";
import type { CLUSTER_INPUTS } from "./inputs";

export const EXAMPLE = {
  type: "TRAINING",
  compute: { gpuTypeId: "NVIDIA H100 80GB HBM3", gpuCountPerPod: 1, podCount: 2 },
  image: "alpine",
} as const satisfies InputValues<typeof CLUSTER_INPUTS>;

/**
 * A change of every input the table holds (ExampleChange): each row is performed through the
 * provider protocol by the generic table, from EXAMPLE.
 */
export const CHANGES = {
  name: { to: "renamed-cluster" },
  type: { to: "RAY" },
  compute: { to: { gpuTypeId: "NVIDIA H100 80GB HBM3", gpuCountPerPod: 1, podCount: 3 }, does: "replace" },
  image: { to: "alpine:3.20" },
  templateId: { to: "tpl_pytorch" },
  args: { to: "sleep infinity" },
  disk: { to: 30 },
  env: { to: { MODE: "changed" } },
  ports: { to: ["22/tcp"] },
  mounts: { to: { persistent: { size: 20, path: "/workspace" } } },
  startSsh: { to: true },
  startJupyter: { to: true },
  dataCenterIds: { to: ["US-TX-3"] },
  // A list that still allows where the cluster runs: recorded, the cluster not moved.
  placement: { from: { dataCenterIds: ["US-TX-3"] }, to: [{ dataCenterId: "US-TX-3" }], does: "update" },
  readiness: { to: { logLine: "." } },
  placementStrategy: { to: "CHEAPEST" },
  maxCostPerHour: { to: 1000 },
  waitForCapacity: { to: { timeoutSeconds: 600 } },
  lifetime: { to: { maxDurationSeconds: 86400, action: "TERMINATE" } },
  readyTimeoutSeconds: { to: 600 },
} as const satisfies Partial<Record<keyof typeof CLUSTER_INPUTS, ExampleChange>>;
