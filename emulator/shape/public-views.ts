/**
 * The `public` answer shape: one rewrite of the seed views, route by route, into what the public
 * OpenAPI of the service allows, plus the liberties a real service takes that a client must
 * survive. The seed views are not touched (the rewrite works on a copy).
 *
 * Four kinds of change, each listed field by field in docs/emulator.md ("Answer shapes"):
 * - seed-only members omitted (the public document does not have them);
 * - optional members thinned: absent, or null where the seed leaves them out;
 * - unknown members added at three levels (list wrapper, resource, nested open object), never
 *   inside objects the public document closes (`additionalProperties: false`) and never over a
 *   member the answer already has;
 * - nothing random: every value comes from the answer itself.
 */
import { BILLING_ROUTES } from "../../contract/billing";
import { hash32 } from "../ids";

type Json = Record<string, unknown>;
type Rewrite = (resource: Json) => void;

/** A running pod's metrics and port mappings are not reported during its first seconds. */
export const RUNTIME_WARMUP_SECONDS = 10;

/** Unknown members, by level. Names the API does not use anywhere, so no client can know them. */
export const EXTRA = {
  /** On list wrappers (`{pods: [...]}`): a pagination cursor the API does not document. */
  wrapper: "nextCursor",
  /** On every resource object, top-level or list item: a number. */
  resource: "revision",
  /** On nested objects the public document leaves open: a string naming the member. */
  nested: "kind",
} as const;

/**
 * Members this shape sends as `null` where the public document says "optional" but not
 * "nullable": beyond the document, as a service whose encoder writes nil for "not set" does.
 * Paths are relative to the resource (`runtime.ports` of a pod). Tests validating answers
 * against the document read this list; nothing else is allowed to deviate.
 */
export const NULL_BEYOND_DOCUMENT: Record<string, readonly string[]> = {
  Pod: ["mounts.persistent", "runtime.ports"],
  Template: ["mounts.persistent"],
  GpuType: ["availability", "price.serverless"],
  CpuType: ["availability"],
  DataCenter: ["gpuAvailability", "cpuAvailability"],
  Endpoint: ["env"],
};

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

function nullWhenAbsent(o: unknown, key: string): void {
  if (isObject(o) && o[key] === undefined) o[key] = null;
}

function addExtra(o: unknown, key: string, value: unknown): void {
  if (isObject(o) && !(key in o)) o[key] = value;
}

/** Marks each open nested object (by member name; arrays: every item) with the nested extra. */
function markNested(o: Json, paths: readonly string[]): void {
  for (const path of paths) {
    let targets: unknown[] = [o];
    for (const key of path.split(".")) {
      targets = targets.flatMap((t) => (isObject(t) ? [t[key]] : [])).flatMap((v) => (Array.isArray(v) ? v : [v]));
    }
    const name = path.split(".").pop()!;
    for (const target of targets) addExtra(target, EXTRA.nested, name);
  }
}

const pod: Rewrite = (p) => {
  // Seed-only: the public Pod has `args` only, and `gpu` as {id, count}.
  delete p.cmd;
  delete p.entrypoint;
  if (isObject(p.gpu)) {
    delete p.gpu.vcpuCount;
    delete p.gpu.memory;
  }
  nullWhenAbsent(p.mounts, "persistent");
  // A container that has just started has reported no metrics and no port mapping yet.
  if (isObject(p.runtime)) {
    const uptime = p.runtime.uptime;
    if (typeof uptime === "number" && uptime < RUNTIME_WARMUP_SECONDS) p.runtime = { uptime, ports: null };
  }
  markNested(p, ["gpu", "cpu", "ssh", "ssh.proxy", "ssh.direct", "globalNetworking", "runtime"]);
};

const template: Rewrite = (t) => {
  nullWhenAbsent(t.mounts, "persistent");
};

const gpuType: Rewrite = (g) => {
  nullWhenAbsent(g, "availability");
  nullWhenAbsent(g.price, "serverless");
  markNested(g, ["price", "maxCount", "dataCenters", "cudaVersions"]);
};

const cpuType: Rewrite = (c) => {
  nullWhenAbsent(c, "availability");
  markNested(c, ["vcpu", "price", "dataCenters"]);
};

const dataCenter: Rewrite = (d) => {
  nullWhenAbsent(d, "gpuAvailability");
  nullWhenAbsent(d, "cpuAvailability");
  markNested(d, ["gpuAvailability", "cpuAvailability"]);
};

const endpoint: Rewrite = (e) => {
  // An empty map is written as null, as an encoder does with a nil map.
  if (isObject(e.env) && Object.keys(e.env).length === 0) e.env = null;
  markNested(e, ["gpu", "cpu"]);
};

const plain: Rewrite = () => undefined;

/** Which rewrite a route's answer gets, and under which list member its resources sit. */
const ROUTES: Record<string, { rewrite: Rewrite; list?: string }> = {
  "GET /v2/pods": { rewrite: pod, list: "pods" },
  "POST /v2/pods": { rewrite: pod },
  "GET /v2/pods/:id": { rewrite: pod },
  "PATCH /v2/pods/:id": { rewrite: pod },
  "POST /v2/pods/:id/action": { rewrite: pod },
  "GET /v2/templates": { rewrite: template, list: "templates" },
  "POST /v2/templates": { rewrite: template },
  "GET /v2/templates/:id": { rewrite: template },
  "PATCH /v2/templates/:id": { rewrite: template },
  "GET /v2/catalog/templates": { rewrite: template, list: "templates" },
  "GET /v2/catalog/gpus": { rewrite: gpuType, list: "gpus" },
  "GET /v2/catalog/gpus/:id": { rewrite: gpuType },
  "GET /v2/catalog/cpus": { rewrite: cpuType, list: "cpus" },
  "GET /v2/catalog/cpus/:id": { rewrite: cpuType },
  "GET /v2/catalog/datacenters": { rewrite: dataCenter, list: "dataCenters" },
  "GET /v2/catalog/datacenters/:id": { rewrite: dataCenter },
  "GET /v2/serverless": { rewrite: endpoint, list: "endpoints" },
  "POST /v2/serverless": { rewrite: endpoint },
  "GET /v2/serverless/:id": { rewrite: endpoint },
  "PATCH /v2/serverless/:id": { rewrite: endpoint },
  // Workers have no nested objects; the wrapper's `summary` is left as it is.
  "GET /v2/serverless/:id/workers": { rewrite: plain, list: "workers" },
  // A cluster's nested objects are all closed in the document: only the resource's unknown member.
  "GET /v2/clusters": { rewrite: plain, list: "clusters" },
  "POST /v2/clusters": { rewrite: plain },
  "GET /v2/clusters/:id": { rewrite: plain },
  "PATCH /v2/clusters/:id": { rewrite: plain },
  "GET /v2/clusters/:id/pods": { rewrite: pod, list: "pods" },
  "GET /v2/registries": { rewrite: plain, list: "registries" },
  "POST /v2/registries": { rewrite: plain },
  "GET /v2/registries/:id": { rewrite: plain },
  // Billing: each record gets the resource's unknown member, the answer the wrapper's.
  ...Object.fromEntries(Object.values(BILLING_ROUTES).map((route) => [`GET ${route.path}`, { rewrite: plain, list: "records" }])),
};

/** The list member of an answer without a route entry: its only array of objects, if any. */
function guessList(body: Json): string | undefined {
  const lists = Object.keys(body).filter((k) => Array.isArray(body[k]) && (body[k] as unknown[]).every(isObject));
  return lists.length === 1 && Object.keys(body).length === 1 ? lists[0] : undefined;
}

function resource(r: unknown, rewrite: Rewrite): void {
  if (!isObject(r)) return;
  // Computed before the rewrite, from the seed view: the same resource state, the same number.
  const revision = (hash32(JSON.stringify(r)) % 9000) + 1000;
  rewrite(r);
  addExtra(r, EXTRA.resource, revision);
}

/** Rewrites the body of a successful JSON answer of `routeKey` (`"GET /v2/pods/:id"`). */
export function publicView(routeKey: string, body: unknown): unknown {
  if (!isObject(body)) return body;
  const out = structuredClone(body);
  const known = ROUTES[routeKey];
  const rewrite = known?.rewrite ?? plain;
  const list = known ? known.list : guessList(out);
  if (list !== undefined && Array.isArray(out[list])) {
    for (const item of out[list] as unknown[]) resource(item, rewrite);
    addExtra(out, EXTRA.wrapper, null);
  } else {
    resource(out, rewrite);
  }
  return out;
}
