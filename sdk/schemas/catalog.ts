/** Catalog listings (GPU types, data centers, CPU flavors, public templates), after the reference OpenAPI. */
import { z } from "zod";
import { AvailabilityLevel, stringMap } from "./common";

const NamedAvailability = z.looseObject({ id: z.string(), name: z.string().optional(), availability: AvailabilityLevel });

export const GpuType = z.looseObject({
  id: z.string(),
  name: z.string(),
  pool: z.string().nullable(),
  manufacturer: z.enum(["NVIDIA", "AMD", "UNKNOWN"]),
  memory: z.int(),
  secure: z.boolean(),
  community: z.boolean(),
  price: z.looseObject({ secure: z.number(), community: z.number(), serverless: z.number().optional() }),
  maxCount: z.looseObject({ secure: z.int(), community: z.int() }),
  availability: AvailabilityLevel.optional(),
  dataCenters: z.array(NamedAvailability).optional(),
  cudaVersions: z.array(z.looseObject({ version: z.string(), available: z.boolean() })).optional(),
});
export type GpuType = z.infer<typeof GpuType>;
export const ListGpuTypesResponse = z.looseObject({ gpus: z.array(GpuType) });

export const DataCenterRegion = z.enum([
  "NORTH_AMERICA",
  "SOUTH_AMERICA",
  "EUROPE",
  "ASIA",
  "MIDDLE_EAST",
  "AFRICA",
  "OCEANIA",
  "ANTARCTICA",
  "UNKNOWN",
]);

export const DataCenter = z.looseObject({
  id: z.string(),
  name: z.string(),
  region: DataCenterRegion,
  globalNetwork: z.boolean(),
  networkVolumeTypes: z.array(z.string()),
  compliance: z.array(z.string()),
  gpuAvailability: z.array(NamedAvailability).optional(),
  cpuAvailability: z.array(NamedAvailability).optional(),
});
export type DataCenter = z.infer<typeof DataCenter>;
export const ListDataCentersResponse = z.looseObject({ dataCenters: z.array(DataCenter) });

export const CpuType = z.looseObject({
  id: z.string(),
  name: z.string(),
  group: z.string(),
  vcpu: z.looseObject({ min: z.int(), max: z.int() }),
  ramGbPerVcpu: z.number(),
  price: z.looseObject({ securePerVcpu: z.number(), serverlessPerVcpu: z.number() }),
  availability: AvailabilityLevel.optional(),
  dataCenters: z.array(NamedAvailability).optional(),
});
export type CpuType = z.infer<typeof CpuType>;
export const ListCpuTypesResponse = z.looseObject({ cpus: z.array(CpuType) });

export const Template = z.looseObject({
  id: z.string(),
  name: z.string(),
  image: z.string(),
  args: z.string().optional(),
  disk: z.int().optional(),
  env: stringMap.optional(),
  ports: z.array(z.string()).optional(),
  registry: z.string().nullable().optional(),
  mounts: z.looseObject({ persistent: z.looseObject({ size: z.int(), path: z.string() }).optional() }).optional(),
  serverless: z.boolean(),
  public: z.boolean(),
  category: z.enum(["CPU", "NVIDIA", "AMD"]),
  startSsh: z.boolean(),
  startJupyter: z.boolean(),
  allowedCudaVersions: z.array(z.string()),
});
export type Template = z.infer<typeof Template>;
export const ListTemplatesResponse = z.looseObject({ templates: z.array(Template) });
