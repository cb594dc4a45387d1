/**
 * Pod wire shapes: the create and update requests with every 422 rule of the contract, and the
 * Pod response. Request schemas are strict (unknown properties are violations); response
 * schemas are loose, so a field the service adds later does not break old clients.
 */
import { z } from "zod";
import { Cloud, dateTime, majorMinor, portSpec, stringMap } from "./common";

const isPowerOfTwo = (n: number) => Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;

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
  image: containerFields.image.optional(),
  args: containerFields.args.optional(),
  cmd: containerFields.cmd.optional(),
  entrypoint: containerFields.entrypoint.optional(),
  disk: containerFields.disk.optional(),
  env: containerFields.env.optional(),
  ports: containerFields.ports.optional(),
  registry: containerFields.registry.optional(),
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
  image: containerFields.image.optional(),
  args: containerFields.args.optional(),
  cmd: containerFields.cmd.optional(),
  entrypoint: containerFields.entrypoint.optional(),
  disk: containerFields.disk.optional(),
  env: containerFields.env.optional(),
  ports: containerFields.ports.optional(),
  registry: containerFields.registry.optional(),
  locked: z.boolean().optional(),
  globalNetworking: z.boolean().optional(),
  mounts: Mounts.optional(),
  templateId: z.string().min(1).optional(),
});
export type UpdatePodRequest = z.infer<typeof UpdatePodRequest>;

export const PodStatus = z.enum(["PROVISIONING", "STARTING", "RUNNING", "EXITED", "ERROR", "TERMINATED"]);
export type PodStatus = z.infer<typeof PodStatus>;
export const PodActionName = z.enum(["start", "stop", "restart", "terminate"]);
export type PodActionName = z.infer<typeof PodActionName>;

export const PodActionRequest = z.strictObject({ action: PodActionName });

const SshEndpoint = z.looseObject({ host: z.string(), port: z.int(), username: z.string(), command: z.string() });
export type PodSshEndpoint = z.infer<typeof SshEndpoint>;

export const Pod = z.looseObject({
  id: z.string(),
  name: z.string(),
  status: PodStatus,
  actions: z.array(PodActionName),
  image: z.string(),
  args: z.string(),
  cmd: z.array(z.string()),
  entrypoint: z.array(z.string()),
  disk: z.int(),
  mounts: z.looseObject({
    persistent: z.looseObject({ size: z.int(), path: z.string() }).optional(),
    network: z.array(z.looseObject({ volumeId: z.string(), path: z.string() })).optional(),
    global: z.array(z.looseObject({ volumeId: z.string(), path: z.string() })).optional(),
  }),
  ports: z.array(z.string()),
  env: stringMap,
  registry: z.string().nullable(),
  gpu: z
    .looseObject({ id: z.string(), count: z.int(), vcpuCount: z.number(), memory: z.number() })
    .optional(),
  cpu: z.looseObject({ id: z.string(), vcpuCount: z.int(), memory: z.int() }).optional(),
  cloud: Cloud,
  dataCenterId: z.string().nullable(),
  cudaVersion: z.string().nullable(),
  ssh: z.looseObject({ proxy: SshEndpoint.nullable(), direct: SshEndpoint.nullable() }),
  cluster: z
    .looseObject({
      id: z.string(),
      rank: z.int().nullable(),
      role: z.enum(["SLURM_CONTROLLER", "SLURM_COMPUTE", "RAY_HEAD", "RAY_WORKER"]).optional(),
      ip: z.string().optional(),
    })
    .optional(),
  template: z.string().nullable(),
  cost: z.number(),
  locked: z.boolean(),
  globalNetworking: z.looseObject({
    enabled: z.boolean(),
    ip: z.string().optional(),
    internalDns: z.string().optional(),
  }),
  runtime: z
    .looseObject({
      uptime: z.int().optional(),
      gpus: z.array(z.looseObject({ util: z.int(), memoryUtil: z.int() })).optional(),
      cpu: z.looseObject({ util: z.int() }).optional(),
      memory: z.looseObject({ util: z.int() }).optional(),
      ports: z
        .array(
          z.looseObject({
            private: z.int(),
            public: z.int().nullable(),
            type: z.string(),
            ip: z.string().nullable(),
          }),
        )
        .optional(),
    })
    .nullable(),
  createdAt: dateTime,
  startedAt: dateTime.nullable(),
});
export type Pod = z.infer<typeof Pod>;

export const ListPodsResponse = z.looseObject({ pods: z.array(Pod) });

/** One event of a pod or sandbox log stream (`data:` payload of the SSE frame). */
export const LogEvent = z.looseObject({
  source: z.enum(["container", "system"]),
  line: z.string(),
  ts: dateTime,
});
export type LogEvent = z.infer<typeof LogEvent>;
