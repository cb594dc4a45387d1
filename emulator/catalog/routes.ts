/** GET /v2/catalog/gpus, /cpus, /datacenters (and by id): query reading and the routes. */
import { Cloud, DataCenterRegion, MAJOR_MINOR, VolumeType, cudaNumbers, isPowerOfTwo } from "../../contract";
import { badRequest, json, notFound } from "../http";
import { QueryReader } from "../query";
import { familyRoutes } from "../router";
import { CatalogViews, type GpuAvailabilityQuery } from "./view";

/** `include=AVAILABILITY` needs `product`, and the availability filters need `include` (400 either way). */
function gpuQuery(query: URLSearchParams): GpuAvailabilityQuery | undefined {
  const q = new QueryReader(query);
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
  q.done();
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
  const q = new QueryReader(query);
  const include = q.enumList("include", ["AVAILABILITY"] as const);
  const product = q.enumList("product", ["POD", "SERVERLESS"] as const);
  const vcpus = q.integer("vcpuCount", 2) ?? 2;
  if (!isPowerOfTwo(vcpus)) q.fail("vcpuCount", "must be a power of two");
  q.done();
  if (include.length > 0 && product.length === 0) throw badRequest("include=AVAILABILITY requires product (POD or SERVERLESS)");
  if (include.length === 0) {
    const stray = ["product", "vcpuCount"].filter((p) => query.has(p));
    if (stray.length > 0) throw badRequest(`${stray.join(", ")} valid only with include=AVAILABILITY`);
    return undefined;
  }
  return { vcpus };
}

const DATA_CENTER_INCLUDE = ["GPU_AVAILABILITY", "CPU_AVAILABILITY"] as const;

export const catalogRoutes = familyRoutes("catalog", (route, world) => {
  const views = new CatalogViews(world.catalog, world.capacity);
  return [
    route({
      method: "GET",
      path: "/v2/catalog/gpus",
      handle: (op) => {
        const availability = gpuQuery(op.query);
        const listed = world.catalog.allGpuTypes().filter((g) => views.listedGpu(g, availability));
        return json(200, { gpus: listed.map((g) => views.gpu(g, availability)) });
      },
    }),
    route({
      method: "GET",
      path: "/v2/catalog/gpus/:id",
      handle: (op) => {
        const availability = gpuQuery(op.query);
        const gpu = world.catalog.gpuType(op.params.id);
        if (!gpu) throw notFound("GPU type", op.params.id);
        return json(200, views.gpu(gpu, availability));
      },
    }),
    route({
      method: "GET",
      path: "/v2/catalog/cpus",
      handle: (op) => {
        const availability = cpuQuery(op.query);
        return json(200, { cpus: world.catalog.allCpuFlavors().map((c) => views.cpu(c, availability)) });
      },
    }),
    route({
      method: "GET",
      path: "/v2/catalog/cpus/:id",
      handle: (op) => {
        const availability = cpuQuery(op.query);
        const flavor = world.catalog.cpuFlavor(op.params.id);
        if (!flavor) throw notFound("CPU flavor", op.params.id);
        return json(200, views.cpu(flavor, availability));
      },
    }),
    route({
      method: "GET",
      path: "/v2/catalog/datacenters",
      handle: (op) => {
        const q = new QueryReader(op.query);
        const include = q.enumList("include", DATA_CENTER_INCLUDE);
        const regions = q.enumList("regions", DataCenterRegion.options);
        const volumeTypes = q.enumList("networkVolumeTypes", VolumeType.options);
        const compliance = q.list("compliance");
        const globalNetwork = q.boolean("globalNetwork");
        q.done();
        // Values within regions are OR-ed; volume types and compliance are AND-ed; families AND-ed.
        const dataCenters = world.catalog.allDataCenters().filter(
          (dc) =>
            (regions.length === 0 || regions.includes(dc.region)) &&
            volumeTypes.every((t) => dc.networkVolumeTypes.includes(t)) &&
            compliance.every((c) => dc.compliance.includes(c)) &&
            (globalNetwork === undefined || dc.globalNetwork === globalNetwork),
        );
        return json(200, { dataCenters: dataCenters.map((dc) => views.dataCenter(dc, include)) });
      },
    }),
    route({
      method: "GET",
      path: "/v2/catalog/datacenters/:id",
      handle: (op) => {
        const q = new QueryReader(op.query);
        const include = q.enumList("include", DATA_CENTER_INCLUDE);
        q.done();
        const dc = world.catalog.dataCenter(op.params.id);
        if (!dc) throw notFound("data center", op.params.id);
        return json(200, views.dataCenter(dc, include));
      },
    }),
  ];
});
