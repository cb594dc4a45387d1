/** Serverless endpoints: the create request of the reference OpenAPI, reduced to what the product sends. */
import { z } from "zod";
import { majorMinor } from "./common";
import { answeredContainerFields, optionalContainerFields } from "./pods";
import { optional, orNull, tolerantList, withDefault } from "./reading";

// The container fields an endpoint may send, with the pod's rules; not the exec-form command.
const { args, disk, env, ports, registry } = optionalContainerFields;

export const CreateEndpointRequest = z.strictObject({
  name: z.string().min(1),
  type: z.enum(["QUEUE", "LOAD_BALANCER"]),
  scaling: z.discriminatedUnion("type", [
    z.strictObject({ type: z.literal("QUEUE_DELAY"), queueDelay: z.number().min(0.5) }),
    z.strictObject({ type: z.literal("REQUEST_COUNT"), requestCount: z.int().min(1) }),
  ]),
  image: z.string().min(1).optional(),
  templateId: z.string().min(1).optional(),
  args,
  disk,
  env,
  ports,
  registry,
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

/**
 * Endpoint, read tolerantly (reading.ts). Required: `id`, `name` and `createdAt` (what create
 * recovery and the CLI identify an endpoint by). `image` is optional in the public document
 * (an endpoint made from a template need not repeat it), as are the CPU endpoint's missing
 * `gpu` and the members a list may leave out; `registry` and `gpu.minCudaVersion` read as null
 * (their "none", as for pods) when absent. Enumerations (`type`, `flashboot`, `scaling.type`)
 * are plain strings, so a new value is shown rather than refused.
 */
export const Endpoint = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: optional(z.string()),
  image: optional(z.string()),
  ...answeredContainerFields,
  gpu: optional(
    z.looseObject({
      pools: optional(z.array(z.string())),
      excludedTypes: optional(z.array(z.string())),
      count: optional(z.int()),
      allowedCudaVersions: optional(z.array(z.string())),
      // Null is the document's "no floor".
      minCudaVersion: orNull(z.string()),
    }),
  ),
  // CPU endpoints carry `cpu` instead of `gpu`; URLs depend on `type`. Read, not interpreted.
  cpu: optional(z.array(z.looseObject({ id: z.string(), vcpuCount: optional(z.int()), memory: optional(z.number()) }))),
  requestUrls: optional(z.looseObject({})),
  workers: optional(z.looseObject({ min: optional(z.int()), max: optional(z.int()), idleTimeout: optional(z.int()) })),
  scaling: optional(z.looseObject({ type: z.string() })),
  dataCenterIds: withDefault(z.array(z.string()), () => []),
  networkVolumes: withDefault(z.array(z.string()), () => []),
  timeout: optional(z.int()),
  flashboot: optional(z.string()),
  createdAt: z.string(),
});
export type Endpoint = z.output<typeof Endpoint>;
export const ListEndpointsResponse = tolerantList("endpoints", Endpoint);
