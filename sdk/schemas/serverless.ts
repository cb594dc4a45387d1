/** Serverless endpoints: the create request of the reference OpenAPI, reduced to what the product sends. */
import { z } from "zod";
import { majorMinor, portSpec, stringMap } from "./common";

export const CreateEndpointRequest = z.strictObject({
  name: z.string().min(1),
  type: z.enum(["QUEUE", "LOAD_BALANCER"]),
  scaling: z.discriminatedUnion("type", [
    z.strictObject({ type: z.literal("QUEUE_DELAY"), queueDelay: z.number().min(0.5) }),
    z.strictObject({ type: z.literal("REQUEST_COUNT"), requestCount: z.int().min(1) }),
  ]),
  image: z.string().min(1).optional(),
  templateId: z.string().min(1).optional(),
  args: z.string().optional(),
  disk: z.int().min(1).optional(),
  env: stringMap.optional(),
  ports: z.array(portSpec).optional(),
  registry: z.string().nullable().optional(),
  gpu: z
    .strictObject({
      pools: z.array(z.string()).min(1),
      excludedTypes: z.array(z.string()).optional(),
      count: z.int().min(1).optional(),
      allowedCudaVersions: z.array(majorMinor).optional(),
      minCudaVersion: majorMinor.optional(),
    })
    .optional(),
  dataCenterIds: z.array(z.string()).optional(),
  networkVolumes: z.array(z.string()).optional(),
  flashboot: z.enum(["OFF", "FLASHBOOT", "PRIORITY_FLASHBOOT"]).optional(),
  timeout: z.int().optional(),
  workers: z
    .strictObject({ min: z.int().min(0).optional(), max: z.int().min(0).optional(), idleTimeout: z.int().min(1).max(3600).optional() })
    .optional(),
});
export type CreateEndpointRequest = z.infer<typeof CreateEndpointRequest>;

/**
 * Rules across fields that are still 422 (reference OpenAPI). They read the raw body, so they
 * are reported together with the schema's own violations, not only once the shape is valid.
 */
export function createEndpointViolations(raw: unknown): string[] {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return [];
  const body = raw as { type?: unknown; scaling?: { type?: unknown } };
  // A load-balanced endpoint scales on request count only.
  if (body.type === "LOAD_BALANCER" && body.scaling?.type === "QUEUE_DELAY") {
    return ['scaling.type: must be "REQUEST_COUNT" for a LOAD_BALANCER endpoint'];
  }
  return [];
}

export const Endpoint = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: z.string().optional(),
  image: z.string(),
  disk: z.int().optional(),
  env: stringMap.optional(),
  gpu: z.looseObject({ pools: z.array(z.string()).optional(), count: z.int().optional() }).nullable().optional(),
  workers: z.looseObject({ min: z.int(), max: z.int() }),
  scaling: z.looseObject({ type: z.string() }),
  dataCenterIds: z.array(z.string()),
  networkVolumes: z.array(z.string()),
  timeout: z.int(),
  flashboot: z.string(),
  createdAt: z.string(),
});
export type Endpoint = z.infer<typeof Endpoint>;
export const ListEndpointsResponse = z.looseObject({ endpoints: z.array(Endpoint) });
