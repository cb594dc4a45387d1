/**
 * The data-source functions, stated once: catalog, templates, sandboxes by label, a Hub
 * repository, and one lookup per resource kind (`getPod`, …: one object by id or by name,
 * which need not belong to the stack; docs/lookups.md). `FUNCTIONS` holds each one's description, arguments, SDK call and result (the
 * contract's zod schemas the SDK reads the answer with); it feeds the TypeScript functions
 * below, the native plugin's Invoke (native/invoke.ts) and the package schema's function
 * shapes (native/function-shapes.ts). A TypeScript function runs in the program's own process
 * with the same settings as the resources (`compute:baseUrl`, `compute:apiKey`,
 * `compute:teamId`, then COMPUTE_*); its description is its `doc` here.
 *
 * A Pulumi function returns an object, and Pulumi YAML reads one member of it
 * (`fn::invoke: {function: compute:index:getGpuTypes, return: gpuTypes}`), so a function whose
 * TypeScript result is a list names the member that holds it through Invoke (`listMember`).
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { BILLING_ROUTES, BillingBucketSize, type BillingRoute } from "../contract/billing";
import { Cluster, CpuType, DataCenter, Endpoint, GpuType, HubRepo, NetworkVolume, Pod, Registry, Sandbox, SandboxState, Template, parseWire, stringMap } from "../contract";
import { ComputeError, NotFoundError, fromStackConfig, keyWithoutMark, parseKey, splitMarkedName, type ComputeClient, type RegisteredKey } from "../sdk";
import { ambiguousName, functionFailure, noneNamed, notFound } from "./runtime/errors";
import { clientFor } from "./runtime/settings";
import { RESOURCES } from "./resources";
import type { ResourceDefinition } from "./resources/definition";
import { nativeToken } from "../contract/tokens";
import { coreSchema } from "./zod-core";

/** One function: the SDK's answer to `call` is what `result` reads (a list of them with `listMember`). */
export interface DataSource<A extends z.ZodObject = z.ZodObject, R extends z.ZodType = z.ZodType, L extends string | undefined = string | undefined> {
  readonly doc: string;
  /** The arguments, by name (`getHubRepo`'s one positional argument is `ref`). */
  readonly args: A;
  /** The result, or each item of a list result. */
  readonly result: R;
  /** A list result: the member of Invoke's answer that holds it. */
  readonly listMember?: L;
  readonly call: (client: ComputeClient, args: z.output<A>) => Promise<L extends string ? z.output<R>[] : z.output<R>>;
  /**
   * What a program passed, read with `args` (the contract's wording) before any call, or a
   * ComputeError with every violation at once, each naming its field and rule. Both faces (the
   * TypeScript function, Invoke) read their arguments with it.
   */
  readonly readArgs: (args: unknown) => z.output<A>;
}

const dataSource = <A extends z.ZodObject, R extends z.ZodType, L extends string | undefined = undefined>(spec: Omit<DataSource<A, R, L>, "readArgs">): DataSource<A, R, L> => ({
  ...spec,
  readArgs(args) {
    const read = parseWire(spec.args as unknown as z.ZodType<z.output<A>>, args);
    if (!read.ok) throw new ComputeError(`invalid arguments: ${read.violations.join("; ")}`);
    return read.value;
  },
});

const noArgs = z.object({});

/**
 * Members of a live object whose values may be secrets of whoever made it (a pod's `env` holds
 * its Jupyter password and whatever tokens its maker gave as secrets). A lookup cannot tell
 * which values those are: a function's result leaves these members out, and a static `get`
 * (provider/classes.ts) keeps them secret in the state.
 */
export const MAYBE_SECRET = ["env"] as const;

/** The arguments of a lookup: the object's id, or its name; exactly one (every violation at once). */
const idOrName = z
  .object({
    id: z.string().min(1).optional(),
    name: z.string().min(1).optional(),
  })
  .superRefine(
    (args, ctx) => {
      if (args.id !== undefined && args.name !== undefined) ctx.addIssue({ code: "custom", path: ["name"], message: "cannot be combined with id (exactly one of id or name)" });
      if (args.id === undefined && args.name === undefined) ctx.addIssue({ code: "custom", path: ["id"], message: "exactly one of id or name is required" });
    },
    // Also when a member has the wrong type: all violations at once.
    { when: () => true },
  );

/** What a TypeScript program passes to a lookup: the object's id, or its name. */
export type LookupArgs = { id: string; name?: never } | { name: string; id?: never };

/**
 * `value` with only the members `schema` declares, at every depth. The SDK reads answers
 * tolerantly, keeping members it does not know; a lookup answers only what its schema (and so
 * the package schema and docs) says, so a member the service adds later, or a secret it should
 * never have answered, cannot reach a program or a state through it.
 */
function declaredOnly(schema: z.ZodType, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const read = coreSchema(schema);
  if (read instanceof z.ZodArray && Array.isArray(value)) return value.map((item) => declaredOnly(read.element as z.ZodType, item));
  if (read instanceof z.ZodRecord && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, declaredOnly(read.valueType as z.ZodType, item)]));
  }
  if (read instanceof z.ZodObject && typeof value === "object") {
    const shape = read.shape as Record<string, z.ZodType>;
    return Object.fromEntries(Object.entries(value).filter(([key]) => Object.hasOwn(shape, key)).map(([key, item]) => [key, declaredOnly(shape[key]!, item)]));
  }
  return value;
}

/**
 * How a lookup finds objects of one kind with the SDK: by id, and the list a name is searched in.
 * By default the calls the kind's definition already serves its resource with (its `family`).
 */
interface Finder<T extends { id: string }> {
  get(client: ComputeClient, id: string): Promise<T>;
  list(client: ComputeClient): Promise<T[]>;
  /** The object's name as a program gives it; default: its name without the owner mark a stack adds to it (sdk/ownership.ts). */
  nameOf?(item: T): string;
}

/** The definition of a registered resource by its type name (`Pod`), which a lookup's finder defaults to. */
function definitionNamed(name: string): ResourceDefinition {
  const definition = RESOURCES.find((candidate) => candidate.name === name);
  if (!definition) throw new Error(`no resource named ${name}`);
  return definition;
}

/** A kind's finder: its family's get and list, but where `custom` says otherwise. */
function finderOf<T extends { id: string }>(definition: ResourceDefinition, custom: Partial<Finder<T>> = {}): Finder<T> {
  return {
    get: (client, id) => definition.family(client).get(id) as Promise<T>,
    list: async (client) => (await definition.family(client).page()).items as T[],
    ...custom,
  };
}

/**
 * The one object `args` names: by id (the service's 404 becomes the lookup's not-found line), or
 * the single one with that name (none, or more than one, fails in one line naming the ids).
 */
async function findOne<T extends { id: string }>(token: string, client: ComputeClient, args: { id?: string; name?: string }, finder: Finder<T>): Promise<T> {
  if (args.id !== undefined) {
    const id = args.id;
    return finder.get(client, id).catch((error: unknown) => {
      throw error instanceof NotFoundError ? notFound(token, id, error) : error;
    });
  }
  const name = args.name!;
  const nameOf = finder.nameOf ?? ((item: T) => splitMarkedName(String((item as { name?: unknown }).name ?? "")).name);
  const matches = (await finder.list(client)).filter((item) => nameOf(item) === name);
  if (matches.length === 0) throw noneNamed(token, name);
  if (matches.length > 1) throw ambiguousName(token, name, matches.map((item) => item.id));
  return matches[0]!;
}

/** The lookup of one resource kind (`Pod`, named as its resource type): arguments `idOrName`, the result as `result` declares it. */
function lookup<T extends { id: string }, R extends z.ZodType>(resource: string, doc: string, result: R, custom: Partial<Finder<T>> = {}) {
  const definition = definitionNamed(resource);
  const token = nativeToken(definition.name);
  const finder = finderOf(definition, custom);
  return dataSource<typeof idOrName, R, undefined>({
    doc: `${doc} Give its \`id\` or its \`name\`, exactly one; none, or a name that more than one has, fails in one line.`,
    args: idOrName,
    result,
    call: async (client, args) => declaredOnly(result, await findOne(token, client, args, finder)) as z.output<R>,
  });
}

/** A result schema without the members that may hold secrets (MAYBE_SECRET). */
const withoutSecrets = <S extends z.ZodObject>(schema: S) => schema.omit(Object.fromEntries(MAYBE_SECRET.map((key) => [key, true])) as never) as z.ZodObject;

/** A pod as the SDK reads it (its command decoded from `args`), without `env`. */
const PodFound = z.pipe(withoutSecrets(Pod.in), Pod.out as unknown as z.ZodTransform<Omit<Pod, (typeof MAYBE_SECRET)[number]>, Record<string, unknown>>);
const TemplateFound = withoutSecrets(Template) as unknown as z.ZodType<Omit<Template, (typeof MAYBE_SECRET)[number]>>;
const EndpointFound = withoutSecrets(Endpoint) as unknown as z.ZodType<Omit<Endpoint, (typeof MAYBE_SECRET)[number]>>;

/** One of the account's SSH keys (sdk/ssh-keys.ts): the service answers only the lines, so this reads the SDK's parse of one. */
const SshKeyFound = z.object({
  id: z.string(),
  type: z.string(),
  comment: z.string(),
  line: z.string(),
});
/** An SSH key line's comment as the program wrote it: without the owner mark a stack adds. */
const keyComment = (key: { line: string }) => parseKey(keyWithoutMark(key.line)).comment;

/**
 * A billing function's arguments: the window (`startTime`/`endTime` as RFC 3339, or the last
 * `lastN` buckets), the bucket size, and the route's id filter under the API's name (`podId`, …).
 */
function billingArgs<R extends BillingRoute>(route: R) {
  const idFilter = BILLING_ROUTES[route].idFilter as string | undefined;
  return z.object({
    startTime: z.string().optional(),
    endTime: z.string().optional(),
    bucketSize: BillingBucketSize.optional(),
    lastN: z.int().min(1).optional(),
    ...(idFilter ? { [idFilter]: z.string().min(1).optional() } : {}),
  });
}

/** A billing function's result: the window the service resolved, its records (each bucket's amounts), and the totals. */
function billingResult(route: BillingRoute) {
  const spec = BILLING_ROUTES[route];
  const idFilter = spec.idFilter as string | undefined;
  const amounts = Object.fromEntries(spec.components.map((component: string) => [component, z.number().optional()]));
  return z.object({
    window: z.object({ startTime: z.string(), endTime: z.string(), bucketSize: z.string() }),
    records: z.array(z.object({ startTime: z.string(), endTime: z.string(), totalAmount: z.number(), ...amounts, ...(idFilter ? { [idFilter]: z.string() } : {}) })),
    totals: z.object({ totalAmount: z.number(), ...amounts }),
  });
}

export interface BillingFound {
  window: { startTime: string; endTime: string; bucketSize: string };
  records: Array<{ startTime: string; endTime: string; totalAmount: number; [member: string]: string | number | undefined }>;
  totals: { totalAmount: number; [component: string]: number | undefined };
}

/** What the account spent through one billing route (sdk `client.billing`), as records and totals. */
function billing(route: BillingRoute, doc: string) {
  const args = billingArgs(route);
  const result = billingResult(route);
  const idFilter = BILLING_ROUTES[route].idFilter as string | undefined;
  return dataSource({
    doc: `${doc} Give a window as \`startTime\` and \`endTime\` (RFC 3339; default the last 30 days) or \`lastN\` buckets, and a \`bucketSize\` (hour, day (default), week, month, year). The current bucket is still in progress, and the service's records may lag its clock.`,
    args,
    result,
    call: async (client, read) => {
      const asked = read as Record<string, unknown>;
      const answer = await client.billing.read(route, {
        startTime: asked.startTime as string | undefined,
        endTime: asked.endTime as string | undefined,
        bucketSize: asked.bucketSize as BillingBucketSize | undefined,
        lastN: asked.lastN as number | undefined,
        id: idFilter ? (asked[idFilter] as string | undefined) : undefined,
      });
      return declaredOnly(result, { window: answer.metadata.query, records: answer.records, totals: answer.metadata.totals }) as BillingFound;
    },
  });
}

/** Keyed by the TypeScript function's name; the schema token is `compute:index:<name>`. */
export const FUNCTIONS = {
  getGpuTypes: dataSource({
    doc: "GPU types with pod availability and per-GPU CUDA versions.",
    args: noArgs,
    result: GpuType,
    listMember: "gpuTypes",
    call: (client) => client.catalog.gpuTypes({ includeAvailability: true }),
  }),
  getDataCenters: dataSource({
    doc: "Data centers with per-GPU availability, optionally in one region.",
    args: z.object({ region: z.string().optional() }),
    result: DataCenter,
    listMember: "dataCenters",
    call: (client, args) => client.catalog.dataCenters({ regions: args.region, includeGpuAvailability: true }),
  }),
  getCpuFlavors: dataSource({
    doc: "CPU flavors with their vCPU range and prices.",
    args: noArgs,
    result: CpuType,
    listMember: "cpuFlavors",
    call: (client) => client.catalog.cpuFlavors(),
  }),
  getTemplates: dataSource({
    doc: "The templates the account may start pods from (its own and public).",
    args: noArgs,
    result: Template,
    listMember: "templates",
    call: (client) => client.catalog.templates(),
  }),
  getSandboxes: dataSource({
    doc: "Live sandboxes carrying every given label (and in the given state).",
    args: z.object({ labels: stringMap.optional(), state: SandboxState.optional() }),
    result: Sandbox,
    listMember: "sandboxes",
    call: (client, args) => client.sandboxes.list({ labels: args.labels, state: args.state }),
  }),
  getHubRepo: dataSource({
    doc: "A Hub repository by id or `owner/name`.",
    args: z.object({ ref: z.string() }),
    result: HubRepo,
    call: (client, args) => client.hub.get(args.ref),
  }),
  getPod: lookup("Pod", "One pod, which need not belong to the stack; its `env` is left out (its values may be secrets).", PodFound),
  getSandbox: lookup("Sandbox", "One sandbox, which need not belong to the stack.", Sandbox),
  getNetworkVolume: lookup("NetworkVolume", "One network volume, which need not belong to the stack.", NetworkVolume),
  getTemplate: lookup<Template, typeof TemplateFound>("Template", "One template, the account's own or a public one; its `env` is left out (its values may be secrets).", TemplateFound, {
    // The account's own (GET /v2/templates) and the public ones the catalog adds, each once.
    list: async (client) => {
      const [own, catalog] = await Promise.all([client.templates.list(), client.catalog.templates()]);
      return [...new Map([...catalog, ...own].map((template) => [template.id, template])).values()];
    },
  }),
  getRegistryCredential: lookup("RegistryCredential", "One registry credential: its id and name (the service never answers its username or password).", Registry),
  getSshKey: lookup<RegisteredKey, typeof SshKeyFound>("SshKey", "One of the account's SSH keys: `id` is its fingerprint (`SHA256:…`), `name` its comment.", SshKeyFound, {
    nameOf: (key) => keyComment(key),
  }),
  getServerlessEndpoint: lookup("ServerlessEndpoint", "One serverless endpoint, which need not belong to the stack; its `env` is left out (its values may be secrets).", EndpointFound),
  // The clusters alone: the family's reads add each one's member pods, which a lookup's result does not hold.
  getCluster: lookup("Cluster", "One cluster, which need not belong to the stack.", Cluster, {
    get: (client, id) => client.clusters.get(id),
    list: (client) => client.clusters.list(),
  }),
  getBilling: billing("all", "What the account spent per bucket, every family's amounts apart (pods, serverless, storage, endpoints, clusters)."),
  getPodBilling: billing("pods", "What the account's pods cost, one record per pod per bucket (`podId` for one pod; cluster members bill under their cluster)."),
  getServerlessBilling: billing("serverless", "What the account's serverless endpoints cost, one record per endpoint per bucket (`serverlessId` for one)."),
  getEndpointBilling: billing("endpoints", "What the service's public endpoints cost the account, per bucket."),
  getNetworkVolumeBilling: billing("networkVolumes", "What the account's network volumes cost, one record per volume per bucket (`networkVolumeId` for one)."),
  getClusterBilling: billing("clusters", "What the account's clusters cost, one record per cluster per bucket (`clusterId` for one)."),
} as const;

export type FunctionName = keyof typeof FUNCTIONS;


function programClient(): ComputeClient {
  // runtime.getConfig reads the decrypted stack configuration without turning every result
  // derived from the key into a secret output. Required here, not imported above: the native
  // plugin loads this module for its table and has no use for the Pulumi program SDK.
  const { runtime } = require("@pulumi/pulumi") as typeof pulumi;
  return clientFor(fromStackConfig({ get: (key) => runtime.getConfig(key) }));
}

/**
 * A function called from a TypeScript program. Its failure is a `RunError`: the Node.js SDK
 * then prints the message alone, without the program's source and stack it prints for others.
 */
function programCall<N extends FunctionName>(name: N, args: Parameters<(typeof FUNCTIONS)[N]["call"]>[1]): ReturnType<(typeof FUNCTIONS)[N]["call"]> {
  const fn = FUNCTIONS[name] as unknown as DataSource;
  const { RunError } = require("@pulumi/pulumi") as typeof pulumi;
  return Promise.resolve()
    .then(() => {
      const read = fn.readArgs(args); // before anything is asked of the service
      return fn.call(programClient(), read);
    })
    .catch((error: unknown) => {
      const failure = functionFailure(name, error);
      if (failure === error) throw error;
      throw new RunError((failure as Error).message);
    }) as ReturnType<(typeof FUNCTIONS)[N]["call"]>;
}

export function getGpuTypes(): Promise<GpuType[]> {
  return programCall("getGpuTypes", {});
}

export function getDataCenters(args: { region?: string } = {}): Promise<DataCenter[]> {
  return programCall("getDataCenters", args);
}

export function getCpuFlavors(): Promise<CpuType[]> {
  return programCall("getCpuFlavors", {});
}

export function getTemplates(): Promise<Template[]> {
  return programCall("getTemplates", {});
}

export function getSandboxes(args: { labels?: Record<string, string>; state?: SandboxState } = {}): Promise<Sandbox[]> {
  return programCall("getSandboxes", args);
}

export function getHubRepo(ref: string): Promise<HubRepo> {
  return programCall("getHubRepo", { ref });
}

export function getPod(args: LookupArgs): Promise<z.output<typeof PodFound>> {
  return programCall("getPod", args);
}

export function getSandbox(args: LookupArgs): Promise<Sandbox> {
  return programCall("getSandbox", args);
}

export function getNetworkVolume(args: LookupArgs): Promise<NetworkVolume> {
  return programCall("getNetworkVolume", args);
}

export function getTemplate(args: LookupArgs): Promise<z.output<typeof TemplateFound>> {
  return programCall("getTemplate", args);
}

export function getRegistryCredential(args: LookupArgs): Promise<Registry> {
  return programCall("getRegistryCredential", args);
}

export function getSshKey(args: LookupArgs): Promise<z.output<typeof SshKeyFound>> {
  return programCall("getSshKey", args);
}

export function getServerlessEndpoint(args: LookupArgs): Promise<z.output<typeof EndpointFound>> {
  return programCall("getServerlessEndpoint", args);
}

export function getCluster(args: LookupArgs): Promise<Cluster> {
  return programCall("getCluster", args);
}

/** A billing function's arguments (the id filter is the route's own: `podId`, `clusterId`, …). */
export interface BillingArgs {
  startTime?: string;
  endTime?: string;
  bucketSize?: BillingBucketSize;
  lastN?: number;
}

export function getBilling(args: BillingArgs = {}): Promise<BillingFound> {
  return programCall("getBilling", args);
}

export function getPodBilling(args: BillingArgs & { podId?: string } = {}): Promise<BillingFound> {
  return programCall("getPodBilling", args);
}

export function getServerlessBilling(args: BillingArgs & { serverlessId?: string } = {}): Promise<BillingFound> {
  return programCall("getServerlessBilling", args);
}

export function getEndpointBilling(args: BillingArgs = {}): Promise<BillingFound> {
  return programCall("getEndpointBilling", args);
}

export function getNetworkVolumeBilling(args: BillingArgs & { networkVolumeId?: string } = {}): Promise<BillingFound> {
  return programCall("getNetworkVolumeBilling", args);
}

export function getClusterBilling(args: BillingArgs & { clusterId?: string } = {}): Promise<BillingFound> {
  return programCall("getClusterBilling", args);
}
