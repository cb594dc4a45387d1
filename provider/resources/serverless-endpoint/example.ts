/**
 * The smallest ServerlessEndpoint a program can declare: a queue endpoint of 2-vCPU CPU workers
 * (none kept warm), scaled by queue delay. The generic tests (test/provider/every-kind.test.ts)
 * check, create, read and delete it. Types only: a leaf module.
 */
import type { InputValues } from "../definition";
import type { SERVERLESS_ENDPOINT_INPUTS } from "./inputs";

export const EXAMPLE = {
  type: "QUEUE",
  image: "alpine",
  cpu: [{ id: "cpu3c", vcpuCount: 2 }],
  scaling: { type: "QUEUE_DELAY", queueDelay: 4 },
} as const satisfies InputValues<typeof SERVERLESS_ENDPOINT_INPUTS>;
