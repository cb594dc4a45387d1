/**
 * Catalog listings (GPU types, data centers, CPU flavors, public templates), after the reference
 * OpenAPI, read tolerantly (reading.ts). The v2 document only says a data center has `id` and
 * `gpuAvailability` entries of `{id, availability}`, so everything else of a data center is
 * derived or defaulted; the other types require what the product shows or decides on.
 */
import { z } from "zod";
import { AvailabilityLevel } from "./common";
import { openEnum, optional, orNull, tolerantList, withDefault } from "./reading";
import { answeredContainerFields } from "./pods";
import { TemplateCategory } from "./templates";

const LEVELS = new Set<string>(AvailabilityLevel.options);

/**
 * `[{id, name?, availability}]`. An entry whose level this SDK does not know is dropped: the
 * resource then counts as unlisted, which placement skips exactly like `NONE` (a level it
 * cannot rank is not a reason to spend a create on it), and the rest of the list still reads.
 */
const availabilityList = z
  .array(z.looseObject({ id: z.string(), name: optional(z.string()), availability: z.string() }))
  .transform((entries) =>
    entries.filter((e): e is typeof e & { availability: AvailabilityLevel } => LEVELS.has(e.availability)),
  );

/** An overall level this SDK does not know reads as absent (the request's answer is "unknown"). */
const overallAvailability = optional(openEnum(AvailabilityLevel.options, undefined));

/** What names a catalog entry (GPU type, data center, CPU flavor): `id` is required; see `withNameOrId`. */
const entryNaming = { id: z.string(), name: optional(z.string()) };

/** A catalog entry without a name reads as named by its id. */
const withNameOrId = <S extends z.ZodType<{ id: string; name?: string }>>(entry: S) =>
  entry.transform((read) => ({ ...read, name: read.name ?? read.id }));

export const GpuManufacturer = z.enum(["NVIDIA", "AMD", "UNKNOWN"]);
export type GpuManufacturer = z.infer<typeof GpuManufacturer>;

export const GpuType = withNameOrId(
  z.looseObject({
    ...entryNaming,
    pool: orNull(z.string()),
    // The enum has its own catch-all: a manufacturer this SDK does not know is UNKNOWN.
    manufacturer: withDefault(openEnum(GpuManufacturer.options, "UNKNOWN" as const), () => "UNKNOWN" as const),
    memory: z.int(),
    secure: z.boolean(),
    community: z.boolean(),
    price: z.looseObject({ secure: z.number(), community: z.number(), serverless: optional(z.number()) }),
    maxCount: z.looseObject({ secure: z.int(), community: z.int() }),
    availability: overallAvailability,
    dataCenters: optional(availabilityList),
    cudaVersions: optional(z.array(z.looseObject({ version: z.string(), available: z.boolean() }))),
  }),
);
export type GpuType = z.output<typeof GpuType>;
export const ListGpuTypesResponse = tolerantList("gpus", GpuType);

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

export const DataCenter = withNameOrId(
  z.looseObject({
    ...entryNaming,
    region: withDefault(openEnum(DataCenterRegion.options, "UNKNOWN" as const), () => "UNKNOWN" as const),
    // Absent: not known to offer it, so global-networking placement does not pick it.
    globalNetwork: withDefault(z.boolean(), () => false),
    networkVolumeTypes: withDefault(z.array(z.string()), () => []),
    compliance: withDefault(z.array(z.string()), () => []),
    gpuAvailability: optional(availabilityList),
    cpuAvailability: optional(availabilityList),
  }),
);
export type DataCenter = z.output<typeof DataCenter>;
export const ListDataCentersResponse = tolerantList("dataCenters", DataCenter);

export const CpuType = withNameOrId(
  z.looseObject({
    ...entryNaming,
    group: withDefault(z.string(), () => ""),
    vcpu: z.looseObject({ min: z.int(), max: z.int() }),
    ramGbPerVcpu: z.number(),
    price: z.looseObject({ securePerVcpu: z.number(), serverlessPerVcpu: optional(z.number()) }),
    availability: overallAvailability,
    dataCenters: optional(availabilityList),
  }),
);
export type CpuType = z.output<typeof CpuType>;
export const ListCpuTypesResponse = tolerantList("cpus", CpuType);

export const Template = z.looseObject({
  id: z.string(),
  name: z.string(),
  image: z.string(),
  ...answeredContainerFields,
  mounts: optional(z.looseObject({ persistent: optional(z.looseObject({ size: z.int(), path: z.string() })) })),
  serverless: withDefault(z.boolean(), () => false),
  public: withDefault(z.boolean(), () => false),
  // Display only: a category this SDK does not know reads as absent.
  category: optional(openEnum(TemplateCategory.options, undefined)),
  startSsh: withDefault(z.boolean(), () => false),
  startJupyter: withDefault(z.boolean(), () => false),
  allowedCudaVersions: withDefault(z.array(z.string()), () => []),
});
export type Template = z.output<typeof Template>;
export const ListTemplatesResponse = tolerantList("templates", Template);
