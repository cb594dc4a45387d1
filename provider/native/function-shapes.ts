/**
 * The data-source functions of provider/functions.ts as the native plugin offers them: each
 * one's arguments and result, in the vocabulary of provider/properties.ts, for the package
 * schema (schema.ts) and for `Invoke`. Type-level checks below fail compilation when an
 * argument or a result member here and the TypeScript function disagree.
 *
 * A Pulumi function returns an object, and Pulumi YAML reads one member of it
 * (`fn::invoke: {function: compute:index:getGpuTypes, return: gpuTypes}`), so a function whose
 * TypeScript result is a list returns it under one member, named by `listMember`; `Invoke`
 * answers `{[listMember]: <the list>}`. `getHubRepo` returns the repository's own members.
 */
import { AvailabilityLevel, DataCenterRegion, GpuManufacturer, HubRepoType, SandboxState, TemplateCategory } from "../../contract";
import type { getCpuFlavors, getDataCenters, getGpuTypes, getHubRepo, getSandboxes, getTemplates } from "../functions";
import type { FieldSpec, SameShape, ValueOf } from "../properties";

type Members = Readonly<Record<string, FieldSpec>>;

export interface FunctionShape {
  readonly doc: string;
  /** The arguments, by name (`getHubRepo`'s one positional argument is `ref`). */
  readonly args: Members;
  /** A list result: the member that holds it, and what each item is. */
  readonly listMember?: string;
  /** The members of the result object, or of each item of a list result. */
  readonly result: Members;
}

const str = { type: "string" } as const;
const int = { type: "integer" } as const;
const num = { type: "number" } as const;
const bool = { type: "boolean" } as const;
const strings = { type: "array", items: str } as const;
const stringMap = { type: "map", additionalProperties: str } as const;
const opt = <F extends FieldSpec>(spec: F) => ({ ...spec, optional: true }) as const;
const orNull = <F extends FieldSpec>(spec: F) => ({ ...spec, nullable: true }) as const;
const oneOf = <const V extends readonly string[]>(values: V) => ({ type: "string", enum: values }) as const;

const availabilityList = opt({
  type: "array",
  items: { type: "object", properties: { id: str, name: opt(str), availability: oneOf(AvailabilityLevel.options) } },
} as const);

const GPU_TYPE = {
  id: str,
  name: str,
  pool: orNull(str),
  manufacturer: oneOf(GpuManufacturer.options),
  memory: int,
  secure: bool,
  community: bool,
  price: { type: "object", properties: { secure: num, community: num, serverless: opt(num) } },
  maxCount: { type: "object", properties: { secure: int, community: int } },
  availability: opt(oneOf(AvailabilityLevel.options)),
  dataCenters: availabilityList,
  cudaVersions: opt({ type: "array", items: { type: "object", properties: { version: str, available: bool } } } as const),
} as const satisfies Members;

const DATA_CENTER = {
  id: str,
  name: str,
  region: oneOf(DataCenterRegion.options),
  globalNetwork: bool,
  networkVolumeTypes: strings,
  compliance: strings,
  gpuAvailability: availabilityList,
  cpuAvailability: availabilityList,
} as const satisfies Members;

const CPU_FLAVOR = {
  id: str,
  name: str,
  group: str,
  vcpu: { type: "object", properties: { min: int, max: int } },
  ramGbPerVcpu: num,
  price: { type: "object", properties: { securePerVcpu: num, serverlessPerVcpu: opt(num) } },
  availability: opt(oneOf(AvailabilityLevel.options)),
  dataCenters: availabilityList,
} as const satisfies Members;

const TEMPLATE = {
  id: str,
  name: str,
  image: str,
  args: opt(str),
  disk: opt(int),
  env: opt(stringMap),
  ports: opt(strings),
  registry: orNull(str),
  mounts: opt({ type: "object", properties: { persistent: opt({ type: "object", properties: { size: int, path: str } } as const) } } as const),
  serverless: bool,
  public: bool,
  category: opt(oneOf(TemplateCategory.options)),
  startSsh: bool,
  startJupyter: bool,
  allowedCudaVersions: strings,
} as const satisfies Members;

const SANDBOX = {
  id: str,
  name: str,
  state: oneOf(SandboxState.options),
  templateId: orNull(str),
  image: str,
  dataCenterId: str,
  compute: { type: "object", properties: { vcpuCount: num, memoryInGb: num, containerDiskInGb: num, costPerHr: num } },
  ports: strings,
  egressPolicy: { type: "object", properties: { mode: str, allow: strings } },
  idleTimeoutSeconds: int,
  maxLifetimeSeconds: int,
  lastActivityAt: str,
  idleExpiresAt: str,
  expiresAt: str,
  labels: stringMap,
  startedAt: orNull(str),
  terminationReason: orNull(str),
  terminatedAt: orNull(str),
  createdAt: str,
  updatedAt: str,
} as const satisfies Members;

const HUB_REPO = {
  id: str,
  owner: str,
  name: str,
  title: str,
  description: str,
  category: str,
  type: oneOf(HubRepoType.options),
  tags: strings,
  stars: int,
  views: int,
  deploys: int,
  createdAt: str,
  updatedAt: str,
  releasedAt: orNull(str),
  release: orNull({
    type: "object",
    properties: {
      id: str,
      tag: str,
      image: str,
      config: {
        type: "object",
        properties: { gpuIds: strings, gpuCount: int, containerDiskInGb: int, env: stringMap, allowedCudaVersions: strings },
      },
    },
  } as const),
} as const satisfies Members;

const GET_DATA_CENTERS_ARGS = { region: opt(str) } as const satisfies Members;
const GET_SANDBOXES_ARGS = { labels: opt(stringMap), state: opt(oneOf(SandboxState.options)) } as const satisfies Members;
const GET_HUB_REPO_ARGS = { ref: str } as const satisfies Members;

/** Keyed by the TypeScript function's name; the schema token is `compute:index:<name>`. */
export const FUNCTION_SHAPES = {
  getGpuTypes: { doc: "GPU types with pod availability and per-GPU CUDA versions.", args: {}, listMember: "gpuTypes", result: GPU_TYPE },
  getDataCenters: {
    doc: "Data centers with per-GPU availability, optionally in one region.",
    args: GET_DATA_CENTERS_ARGS,
    listMember: "dataCenters",
    result: DATA_CENTER,
  },
  getCpuFlavors: { doc: "CPU flavors with their vCPU range and prices.", args: {}, listMember: "cpuFlavors", result: CPU_FLAVOR },
  getTemplates: { doc: "The templates the account may start pods from (its own and public).", args: {}, listMember: "templates", result: TEMPLATE },
  getSandboxes: {
    doc: "Live sandboxes carrying every given label (and in the given state).",
    args: GET_SANDBOXES_ARGS,
    listMember: "sandboxes",
    result: SANDBOX,
  },
  getHubRepo: { doc: "A Hub repository by id or `owner/name`.", args: GET_HUB_REPO_ARGS, result: HUB_REPO },
} as const satisfies Readonly<Record<string, FunctionShape>>;

/**
 * An object value's members without the index signature a tolerant (loose) wire reading adds,
 * at any depth; a map (only an index signature) stays a map.
 */
type Known<T> = T extends readonly (infer I)[]
  ? Known<I>[]
  : T extends object
    ? [KnownKeys<T>] extends [never]
      ? { [K in keyof T]: Known<T[K]> }
      : { [K in KnownKeys<T>]: Known<T[K]> }
    : T;
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: 0 };
type ObjectValue<M extends Members> = ValueOf<{ type: "object"; properties: M }>;
type ListItem<F extends (...args: never[]) => Promise<readonly unknown[]>> = Known<Awaited<ReturnType<F>>[number]>;

// A member or argument added, removed or retyped in provider/functions.ts (or the SDK types it returns) fails to compile.
true satisfies SameShape<ObjectValue<typeof GPU_TYPE>, ListItem<typeof getGpuTypes>>;
true satisfies SameShape<ObjectValue<typeof DATA_CENTER>, ListItem<typeof getDataCenters>>;
true satisfies SameShape<ObjectValue<typeof CPU_FLAVOR>, ListItem<typeof getCpuFlavors>>;
true satisfies SameShape<ObjectValue<typeof TEMPLATE>, ListItem<typeof getTemplates>>;
true satisfies SameShape<ObjectValue<typeof SANDBOX>, ListItem<typeof getSandboxes>>;
true satisfies SameShape<ObjectValue<typeof HUB_REPO>, Known<Awaited<ReturnType<typeof getHubRepo>>>>;
true satisfies SameShape<ObjectValue<typeof GET_DATA_CENTERS_ARGS>, NonNullable<Parameters<typeof getDataCenters>[0]>>;
true satisfies SameShape<ObjectValue<typeof GET_SANDBOXES_ARGS>, NonNullable<Parameters<typeof getSandboxes>[0]>>;
true satisfies SameShape<ValueOf<typeof GET_HUB_REPO_ARGS.ref>, Parameters<typeof getHubRepo>[0]>;
true satisfies SameShape<Parameters<typeof getGpuTypes | typeof getCpuFlavors | typeof getTemplates>["length"], 0>;
