/** Serverless endpoints: the create request of the reference OpenAPI, reduced to what the product sends. */
import { z } from "zod";
import { majorMinor } from "./common";
import { CreateCpuConfig, answeredContainerFields, optionalContainerFields } from "./pods";
import { optional, orNull, tolerantList, withDefault } from "./reading";

// The container fields an endpoint may send, with the pod's rules; not the exec-form command.
const { args, disk, env, ports, registry } = optionalContainerFields;

const workers = z.strictObject({ min: z.int().min(0).optional(), max: z.int().min(0).optional(), idleTimeout: z.int().min(1).max(3600).optional() });
const scaling = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("QUEUE_DELAY"), queueDelay: z.number().min(0.5) }),
  z.strictObject({ type: z.literal("REQUEST_COUNT"), requestCount: z.int().min(1) }),
]);
const flashboot = z.enum(["OFF", "FLASHBOOT", "PRIORITY_FLASHBOOT"]);
/** A GPU endpoint's workers: serverless pools, types excluded from them, GPUs per worker, CUDA constraints. */
const endpointGpu = z.strictObject({
  pools: z.array(z.string()).min(1),
  excludedTypes: z.array(z.string()).optional(),
  count: z.int().min(1).optional(),
  allowedCudaVersions: z.array(majorMinor).optional(),
  minCudaVersion: majorMinor.optional(),
});
/** A CPU endpoint's worker choices: each a flavor and a vCPU count (memory follows from the flavor). */
const cpuChoices = z.array(CreateCpuConfig).min(1);

export const CreateEndpointRequest = z.strictObject({
  name: z.string().min(1),
  type: z.enum(["QUEUE", "LOAD_BALANCER"]),
  scaling,
  image: z.string().min(1).optional(),
  templateId: z.string().min(1).optional(),
  args,
  disk,
  env,
  ports,
  registry,
  gpu: endpointGpu.optional(),
  cpu: cpuChoices.optional(),
  dataCenterIds: z.array(z.string()).optional(),
  networkVolumes: z.array(z.string()).optional(),
  flashboot: flashboot.optional(),
  timeout: z.int().optional(),
  workers: workers.optional(),
});
export type CreateEndpointRequest = z.infer<typeof CreateEndpointRequest>;

/**
 * PATCH of an endpoint (reference OpenAPI `UpdateEndpointRequest`): only the members sent
 * change. `type` is not among them, and the compute family (`gpu` or `cpu`) is fixed at create:
 * a change of either needs a new endpoint. In `gpu`, `allowedCudaVersions: []` and
 * `minCudaVersion: ""` clear a constraint; `excludedTypes` needs `pools` beside it.
 */
export const UpdateEndpointRequest = CreateEndpointRequest.omit({ type: true, gpu: true })
  .partial()
  .extend({
    // Every member optional (`pools` too), and `""` clears the CUDA floor.
    gpu: endpointGpu.partial().extend({ minCudaVersion: z.union([z.literal(""), majorMinor]).optional() }).optional(),
  });
export type UpdateEndpointRequest = z.infer<typeof UpdateEndpointRequest>;

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

/** What the cross-field rules read of a create or an update body. */
interface EndpointFields {
  type?: string;
  image?: string;
  templateId?: string;
  gpu?: { pools?: string[]; excludedTypes?: string[]; allowedCudaVersions?: string[]; minCudaVersion?: string };
  cpu?: unknown[];
  scaling?: { type: string };
  workers?: { min?: number; max?: number; idleTimeout?: number };
}

/** Rules across fields of a valid body (400): the compute family, the image, CUDA, worker bounds. */
export function endpointCrossFieldViolations(body: EndpointFields, use: "create" | "update" = "create"): string[] {
  const out: string[] = [];
  if (use === "create") {
    if (body.gpu === undefined && body.cpu === undefined) out.push("gpu: exactly one of gpu or cpu is required");
    if (body.image === undefined && body.templateId === undefined) out.push("image: is required unless templateId is set");
  }
  if (body.gpu !== undefined && body.cpu !== undefined) out.push("cpu: cannot be combined with gpu (exactly one of gpu or cpu)");
  const cuda = body.gpu?.allowedCudaVersions;
  if (cuda && cuda.length > 0 && body.gpu?.minCudaVersion !== undefined && body.gpu.minCudaVersion !== "") {
    out.push("gpu.minCudaVersion: cannot be combined with a non-empty gpu.allowedCudaVersions");
  }
  if (use === "update" && body.gpu?.excludedTypes !== undefined && body.gpu.pools === undefined) {
    out.push("gpu.excludedTypes: needs gpu.pools beside it (the two are one selection)");
  }
  if (body.workers?.min !== undefined && body.workers.max !== undefined && body.workers.min > body.workers.max) {
    out.push("workers.min: must not exceed workers.max");
  }
  // Reference OpenAPI: a queue endpoint scaled by request count has no idle timeout.
  if (body.type === "QUEUE" && body.scaling?.type === "REQUEST_COUNT" && body.workers?.idleTimeout !== undefined) {
    out.push("workers.idleTimeout: does not apply to a QUEUE endpoint scaling on REQUEST_COUNT");
  }
  return out;
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

/**
 * A worker's status (public OpenAPI `WorkerStatus`): RUNNING (serving a job) and IDLE (polling
 * for jobs) are ready; INITIALIZING, THROTTLED (waiting for capacity) and UNHEALTHY (failing
 * health checks) are not.
 */
export const WORKER_STATUSES = ["RUNNING", "IDLE", "INITIALIZING", "THROTTLED", "UNHEALTHY"] as const;
export const WORKER_READY_STATUSES: ReadonlySet<string> = new Set(["RUNNING", "IDLE"]);

/**
 * One worker of `GET /v2/serverless/{id}/workers`, read tolerantly: `status` is a plain string
 * (a value added later counts as not ready, never as a failure to read), `isStale` defaults to
 * false (a worker whose version is unknown is not known to be stale).
 */
export const Worker = z.looseObject({
  id: z.string(),
  status: z.string(),
  isStale: withDefault(z.boolean(), () => false),
  version: orNull(z.int()),
  gpuCount: optional(z.int()),
  image: orNull(z.string()),
  uptimeSeconds: orNull(z.int()),
  gpuTypeId: orNull(z.string()),
  dataCenterId: orNull(z.string()),
  startedAt: orNull(z.string()),
});
export type Worker = z.output<typeof Worker>;

/** Counts by status; a roll-up of `workers`. */
const WorkerSummary = z.looseObject({
  running: withDefault(z.int(), () => 0),
  idle: withDefault(z.int(), () => 0),
  initializing: withDefault(z.int(), () => 0),
  throttled: withDefault(z.int(), () => 0),
  unhealthy: withDefault(z.int(), () => 0),
  total: withDefault(z.int(), () => 0),
});

/** `GET /v2/serverless/{id}/workers` (public OpenAPI `ListEndpointWorkersResponse`). */
export const ListEndpointWorkersResponse = z.looseObject({
  workers: withDefault(z.array(Worker), () => []),
  summary: optional(WorkerSummary),
  endpointVersion: orNull(z.int()),
});
export type ListEndpointWorkersResponse = z.output<typeof ListEndpointWorkersResponse>;

/** The workers that serve the endpoint's current configuration now (a stale worker proves nothing about it). */
export function readyWorkers(workers: readonly Worker[]): number {
  return workers.filter((w) => WORKER_READY_STATUSES.has(w.status) && !w.isStale).length;
}
