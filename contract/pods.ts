/**
 * Pod wire shapes: the create and update requests with every 422 rule of the contract, and the
 * Pod response. Request schemas are strict (unknown properties are violations); the response
 * is read tolerantly (reading.ts), so a body either document allows, or a member the service
 * adds later, never breaks a client.
 */
import { z } from "zod";
import { decodeCommand } from "./command";
import { Cloud, dateTime, isPowerOfTwo, majorMinor, portSpec, stringMap } from "./common";
import { openEnum, optional, orNull, tolerantList, withDefault } from "./reading";

/** The container disk, in GB, of a pod, template or endpoint whose create sends none (nor its template). */
export const DEFAULT_CONTAINER_DISK_GB = 20;

/** The container configuration shared by pods, templates and serverless endpoints. */
export const containerFields = {
  image: z.string(),
  args: z.string(),
  cmd: z.array(z.string()),
  entrypoint: z.array(z.string()),
  disk: z.int().min(1),
  env: stringMap,
  ports: z.array(portSpec),
  registry: z.string().nullable(),
};

/** The same fields, each optional: what a create or update request may send of them. */
export const optionalContainerFields = z.object(containerFields).partial().shape;

/**
 * What a template or an endpoint answers of them, read tolerantly: each may be left out, and
 * `registry` reads as null then (its "none", as for pods). A pod's own are required (Pod).
 */
export const answeredContainerFields = {
  args: optional(z.string()),
  disk: optional(z.int()),
  env: optional(stringMap),
  ports: optional(z.array(z.string())),
  registry: orNull(z.string()),
};

export const CreateGpuConfig = z.strictObject({
  id: z.string().min(1),
  count: z.int().min(1).optional(),
  allowedCudaVersions: z.array(majorMinor).optional(),
  minCudaVersion: majorMinor.optional(),
  minRamPerGpu: z.int().min(1).optional(),
  minVcpuCountPerGpu: z.int().min(1).optional(),
});
export type CreateGpuConfig = z.infer<typeof CreateGpuConfig>;

export const CreateCpuConfig = z.strictObject({
  id: z.string().min(1),
  vcpuCount: z
    .int()
    .min(2)
    .refine(isPowerOfTwo, { message: "must be a power of two" }),
});
export type CreateCpuConfig = z.infer<typeof CreateCpuConfig>;

export const PersistentMount = z.strictObject({ size: z.int().min(10), path: z.string() });
export const NetworkMount = z.strictObject({ volumeId: z.string(), path: z.string() });
export const GlobalMount = z.strictObject({ volumeId: z.string(), path: z.string().optional() });

export const Mounts = z.strictObject({
  persistent: PersistentMount.optional(),
  network: z.array(NetworkMount).max(1).optional(),
  global: z.array(GlobalMount).max(1).optional(),
});
export type Mounts = z.infer<typeof Mounts>;

export const CreatePodRequest = z.strictObject({
  name: z.string().min(1),
  ...optionalContainerFields,
  gpu: CreateGpuConfig.optional(),
  cpu: CreateCpuConfig.optional(),
  cloud: Cloud.optional(),
  dataCenterIds: z.array(z.string()).optional(),
  globalNetworking: z.boolean().optional(),
  mounts: Mounts.optional(),
  startJupyter: z.boolean().optional(),
  startSsh: z.boolean().optional(),
  templateId: z.string().min(1).optional(),
});
export type CreatePodRequest = z.infer<typeof CreatePodRequest>;

/** PATCH /v2/pods/{id}: container fields plus name, locked, globalNetworking, mounts, templateId. */
export const UpdatePodRequest = z.strictObject({
  name: z.string().min(1).optional(),
  ...optionalContainerFields,
  locked: z.boolean().optional(),
  globalNetworking: z.boolean().optional(),
  mounts: Mounts.optional(),
  templateId: z.string().min(1).optional(),
});
export type UpdatePodRequest = z.infer<typeof UpdatePodRequest>;

export const PodStatus = z.enum(["PROVISIONING", "STARTING", "RUNNING", "EXITED", "ERROR", "TERMINATED"]);
export type PodStatus = z.infer<typeof PodStatus>;

/**
 * The pod states, grouped once for every reader (SDK, provider, CLI, emulator). Active: the
 * pod runs or is on its way to running. Ended: the pod is gone for good and bills no more
 * (EXITED and ERROR are neither: a stopped or failed pod keeps its volume and can start again).
 */
export const POD_ACTIVE_STATUSES: ReadonlySet<PodStatus> = new Set(["PROVISIONING", "STARTING", "RUNNING"]);
export const POD_ENDED_STATUSES: ReadonlySet<PodStatus> = new Set(["TERMINATED"]);
/**
 * The env keys the service injects into a pod itself: `PUBLIC_KEY` (the account's SSH keys, for
 * `startSsh`) and `JUPYTER_PASSWORD` (generated for `startJupyter`), unless the env sets them.
 * A program never manages them; their presence says what the pod was started with.
 */
export const INJECTED_ENV_KEYS: ReadonlySet<string> = new Set(["PUBLIC_KEY", "JUPYTER_PASSWORD"]);
export const PodActionName = z.enum(["start", "stop", "restart", "terminate"]);
export type PodActionName = z.infer<typeof PodActionName>;

export const PodActionRequest = z.strictObject({ action: PodActionName });

/** A cluster member pod's role (`cluster.role`). */
export const ClusterRole = z.enum(["SLURM_CONTROLLER", "SLURM_COMPUTE", "RAY_HEAD", "RAY_WORKER"]);
export type ClusterRole = z.infer<typeof ClusterRole>;

const SshEndpoint = z.looseObject({ host: z.string(), port: z.int(), username: z.string(), command: z.string() });
export type PodSshEndpoint = z.infer<typeof SshEndpoint>;

const POD_ACTIONS = new Set<string>(PodActionName.options);

/**
 * A live port mapping. Every member is optional in the public document, so an entry without
 * its private port is kept (read as null): it still says a public port is open, and dropping it
 * would hide that mapping from the outputs.
 */
const RuntimePort = z.looseObject({
  private: orNull(z.int()),
  public: orNull(z.int()),
  type: optional(z.string()),
  ip: orNull(z.string()),
});

/**
 * The Pod response, read tolerantly (see reading.ts). Required: what the product cannot do
 * without and both documents require — `id`, `name`, `status` (every decision of the provider
 * depends on it), `image` and `args` (applied outputs and drift), `disk`, `cost`, `locked`,
 * `createdAt` (create recovery). Everything else is derived or defaulted:
 * `cmd`/`entrypoint` from `args` (the public document does not return them), `gpu.count` 1,
 * `actions`/`ports` [], `env`/`mounts` {}, nullable facts null, `ssh` endpoints null.
 *
 * Unknown enumeration values, per field: an unknown `status` makes the pod unreadable (a
 * guessed status could start or stop the wrong thing), and a list sets that pod aside instead
 * of failing (`tolerantList`); an unknown entry of `actions` is dropped (the SDK cannot invoke
 * it); an unknown `cloud` or cluster `role` reads as absent (nothing in the product decides on
 * them).
 */
export const Pod = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    status: PodStatus,
    actions: withDefault(z.array(z.string()), () => []).transform((all) => all.filter((a): a is PodActionName => POD_ACTIONS.has(a))),
    image: z.string(),
    args: z.string(),
    cmd: optional(z.array(z.string())),
    entrypoint: optional(z.array(z.string())),
    disk: z.int(),
    mounts: withDefault(
      z.looseObject({
        persistent: optional(z.looseObject({ size: z.int(), path: z.string() })),
        network: optional(z.array(z.looseObject({ volumeId: z.string(), path: z.string() }))),
        // Seed only; its path is chosen by the service when not given.
        global: optional(z.array(z.looseObject({ volumeId: z.string(), path: optional(z.string()) }))),
      }),
      () => ({}),
    ),
    ports: withDefault(z.array(z.string()), () => []),
    env: withDefault(stringMap, () => ({})),
    registry: orNull(z.string()),
    gpu: optional(
      z.looseObject({
        id: z.string(),
        count: withDefault(z.int(), () => 1),
        // Seed: totals across all GPUs, always sent; the public document has neither.
        vcpuCount: optional(z.number()),
        memory: optional(z.number()),
      }),
    ),
    cpu: optional(z.looseObject({ id: z.string(), vcpuCount: optional(z.int()), memory: optional(z.number()) })),
    cloud: optional(openEnum(Cloud.options, undefined)),
    dataCenterId: orNull(z.string()),
    cudaVersion: orNull(z.string()),
    ssh: withDefault(z.looseObject({ proxy: orNull(SshEndpoint), direct: orNull(SshEndpoint) }), () => ({ proxy: null, direct: null })),
    cluster: optional(
      z.looseObject({
        id: z.string(),
        rank: orNull(z.int()),
        role: optional(openEnum(ClusterRole.options, undefined)),
        ip: optional(z.string()),
      }),
    ),
    template: orNull(z.string()),
    cost: z.number(),
    locked: z.boolean(),
    globalNetworking: withDefault(
      z.looseObject({ enabled: withDefault(z.boolean(), () => false), ip: optional(z.string()), internalDns: optional(z.string()) }),
      () => ({ enabled: false }),
    ),
    runtime: orNull(
      z.looseObject({
        uptime: optional(z.int()),
        gpus: optional(z.array(z.looseObject({ util: optional(z.int()), memoryUtil: optional(z.int()) }))),
        cpu: optional(z.looseObject({ util: optional(z.int()) })),
        memory: optional(z.looseObject({ util: optional(z.int()) })),
        ports: optional(z.array(RuntimePort)),
      }),
    ),
    createdAt: dateTime,
    startedAt: orNull(dateTime),
  })
  .transform((pod) => {
    // The stored command deconstructed, as the seed returns it; derived when the service does not.
    if (pod.cmd !== undefined && pod.entrypoint !== undefined) return pod as typeof pod & { cmd: string[]; entrypoint: string[] };
    const decoded = decodeCommand(pod.args);
    return { ...pod, cmd: pod.cmd ?? decoded.cmd ?? [], entrypoint: pod.entrypoint ?? decoded.entrypoint ?? [] };
  });
export type Pod = z.output<typeof Pod>;

export const ListPodsResponse = tolerantList("pods", Pod);
