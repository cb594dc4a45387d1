/**
 * The smallest ServerlessEndpoint a program can declare: a queue endpoint of 2-vCPU CPU workers
 * (none kept warm), scaled by queue delay. The generic tests (test/provider/every-kind.test.ts)
 * check, create, read and delete it. Types only: a leaf module.
 */
import type { ExampleChange, InputValues } from "../definition";
import type { SERVERLESS_ENDPOINT_INPUTS } from "./inputs";

export const EXAMPLE = {
  type: "QUEUE",
  image: "alpine",
  cpu: [{ id: "cpu3c", vcpuCount: 2 }],
  scaling: { type: "QUEUE_DELAY", queueDelay: 4 },
} as const satisfies InputValues<typeof SERVERLESS_ENDPOINT_INPUTS>;

/**
 * A change of every input the table holds (ExampleChange): each row is performed through the
 * provider protocol by the generic table, from EXAMPLE (or EXAMPLE with `from`).
 */
export const CHANGES = {
  name: { to: "renamed-endpoint" },
  type: { from: { scaling: { type: "REQUEST_COUNT", requestCount: 10 } }, to: "LOAD_BALANCER" },
  hubRepo: { from: { hubRepo: "hub_662work", image: undefined, cpu: undefined, scaling: undefined, type: undefined }, to: "hub_ie0work" },
  templateId: { to: "tpl_dev_embedder" },
  image: { to: "alpine:3.20" },
  args: { to: "sleep 1" },
  disk: { to: 30 },
  env: { to: { MODE: "changed" } },
  ports: { to: ["8000/http"] },
  registryId: { to: "reg_dev_ghcr" },
  gpu: { from: { cpu: undefined, gpu: { pools: ["AMPERE_24"] } }, to: { pools: ["AMPERE_24"], count: 2 }, does: "update" },
  cpu: { to: [{ id: "cpu3c", vcpuCount: 4 }], does: "update" },
  scaling: { to: { type: "QUEUE_DELAY", queueDelay: 8 } },
  workers: { to: { max: 5 } },
  flashboot: { to: "FLASHBOOT" },
  networkVolumeIds: { to: ["vol_dev_tx"] },
  dataCenterIds: { to: ["US-TX-3"] },
  executionTimeoutMs: { to: 600000 },
  readiness: { from: { workers: { min: 1 } }, to: { minReadyWorkers: 1 } },
  // A GPU endpoint's: the cap excludes GPU types.
  maxCostPerHour: { from: { cpu: undefined, gpu: { pools: ["ADA_24"] } }, to: 100 },
  lifetime: { to: { maxDurationSeconds: 86400, action: "STOP" } },
  readyTimeoutSeconds: { to: 300 },
} as const satisfies Partial<Record<keyof typeof SERVERLESS_ENDPOINT_INPUTS, ExampleChange>>;
