/** GET /v2/catalog/gpus, /cpus, /datacenters (and by id): query reading and the routes. */
import { Cloud, DataCenterRegion, MAJOR_MINOR, VolumeType, cudaNumbers, isPowerOfTwo } from "../../contract";
import type { DataCenterFixture } from "../fixture";
import { badRequest, json, orNotFound } from "../http";
import type { Keyed } from "../keyed";
import { readQuery } from "../query";
import type { Capacity } from "../placement/capacity";
import { familyRoutes } from "../router";
import type { Catalog } from "./store";
import { CatalogViews, type GpuAvailabilityQuery } from "./view";

/** `include=AVAILABILITY` needs `product`, and the availability filters need `include` (400 either way). */
function gpuQuery(query: URLSearchParams): GpuAvailabilityQuery | undefined {
  const { include, product, count, cloud, countries, cudaVersions, minCuda } = readQuery(query, (q) => {
    const include = q.enumList("include", ["AVAILABILITY"] as const);
    const product = q.enumList("product", ["POD", "CLUSTER", "SERVERLESS"] as const);
    const count = q.integer("count", 1) ?? 1;
    const cloud = q.enumValue("cloud", Cloud.options);
    const countries = q.list("countryCodes");
    countries.forEach((c) => /^[A-Z]{2}$/.test(c) || q.fail("countryCodes", `"${c}" must be an upper-case ISO 3166-1 alpha-2 code`));
    const cudaVersions = q.list("cudaVersions");
    cudaVersions.forEach((v) => MAJOR_MINOR.test(v) || q.fail("cudaVersions", `"${v}" must be a major.minor version`));
    const minCuda = q.string("minCudaVersion");
    if (minCuda !== undefined && cudaNumbers(minCuda) === null) q.fail("minCudaVersion", "must be major or major.minor");
    return { include, product, count, cloud, countries, cudaVersions, minCuda };
  });
  const wantsAvailability = include.length > 0;
  if (wantsAvailability && product.length === 0) throw badRequest("include=AVAILABILITY requires product (POD, CLUSTER or SERVERLESS)");
  if (!wantsAvailability) {
    const stray = ["product", "count", "cloud", "countryCodes", "cudaVersions", "minCudaVersion"].filter((p) => query.has(p));
    if (stray.length > 0) throw badRequest(`${stray.join(", ")} ${stray.length > 1 ? "are" : "is"} valid only with include=AVAILABILITY`);
    return undefined;
  }
  if (cudaVersions.length > 0 && minCuda !== undefined) throw badRequest("cudaVersions and minCudaVersion are mutually exclusive");
  return { clouds: [cloud ?? "SECURE"], count, cuda: { allowed: cudaVersions, min: minCuda }, countries };
}

function cpuQuery(query: URLSearchParams): { vcpus: number } | undefined {
  const { include, product, vcpus } = readQuery(query, (q) => {
    const include = q.enumList("include", ["AVAILABILITY"] as const);
    const product = q.enumList("product", ["POD", "SERVERLESS"] as const);
    const vcpus = q.integer("vcpuCount", 2) ?? 2;
    if (!isPowerOfTwo(vcpus)) q.fail("vcpuCount", "must be a power of two");
    return { include, product, vcpus };
  });
  if (include.length > 0 && product.length === 0) throw badRequest("include=AVAILABILITY requires product (POD or SERVERLESS)");
  if (include.length === 0) {
    const stray = ["product", "vcpuCount"].filter((p) => query.has(p));
    if (stray.length > 0) throw badRequest(`${stray.join(", ")} valid only with include=AVAILABILITY`);
    return undefined;
  }
  return { vcpus };
}

const DATA_CENTER_INCLUDE = ["GPU_AVAILABILITY", "CPU_AVAILABILITY"] as const;

const dataCenterInclude = (query: URLSearchParams) => readQuery(query, (q) => q.enumList("include", DATA_CENTER_INCLUDE));

/** The data center list's filters: values within regions are OR-ed; volume types and compliance are AND-ed; families AND-ed. */
function dataCenterFilters(query: URLSearchParams) {
  const { include, regions, volumeTypes, compliance, globalNetwork } = readQuery(query, (q) => ({
    include: q.enumList("include", DATA_CENTER_INCLUDE),
    regions: q.enumList("regions", DataCenterRegion.options),
    volumeTypes: q.enumList("networkVolumeTypes", VolumeType.options),
    compliance: q.list("compliance"),
    globalNetwork: q.boolean("globalNetwork"),
  }));
  const matches = (dc: DataCenterFixture) =>
    (regions.length === 0 || regions.includes(dc.region)) &&
    volumeTypes.every((t) => dc.networkVolumeTypes.includes(t)) &&
    compliance.every((c) => dc.compliance.includes(c)) &&
    (globalNetwork === undefined || dc.globalNetwork === globalNetwork);
  return { include, matches };
}

export const catalogRoutes = familyRoutes("catalog", (route, world: { readonly catalog: Catalog; readonly capacity: Capacity }) => {
  const views = new CatalogViews(world.catalog, world.capacity);
  /** A catalog read: its query is read first (400, 422), then `answer` looks (404) and answers. */
  const catalogRoute = <Q>(path: string, options: (query: URLSearchParams) => Q, answer: (options: Q, id: string) => object) =>
    route({ method: "GET", path, handle: (op) => json(200, answer(options(op.query), op.params.id)) });
  /** The entry of `table` with this id, or the 404 naming `what`. */
  const entry = <T>(table: Keyed<T>, what: string, id: string) => orNotFound(table.get(id), what, id);
  return [
    catalogRoute("/v2/catalog/gpus", gpuQuery, (availability) => ({
      gpus: world.catalog.gpuTypes.all().filter((g) => views.listedGpu(g, availability)).map((g) => views.gpu(g, availability)),
    })),
    catalogRoute("/v2/catalog/gpus/:id", gpuQuery, (availability, id) => views.gpu(entry(world.catalog.gpuTypes, "GPU type", id), availability)),
    catalogRoute("/v2/catalog/cpus", cpuQuery, (availability) => ({ cpus: world.catalog.cpuFlavors.all().map((c) => views.cpu(c, availability)) })),
    catalogRoute("/v2/catalog/cpus/:id", cpuQuery, (availability, id) => views.cpu(entry(world.catalog.cpuFlavors, "CPU flavor", id), availability)),
    catalogRoute("/v2/catalog/datacenters", dataCenterFilters, ({ include, matches }) => ({
      dataCenters: world.catalog.dataCenters.all().filter(matches).map((dc) => views.dataCenter(dc, include)),
    })),
    catalogRoute("/v2/catalog/datacenters/:id", dataCenterInclude, (include, id) =>
      views.dataCenter(entry(world.catalog.dataCenters, "data center", id), include),
    ),
  ];
});
