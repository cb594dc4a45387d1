/**
 * The fixture: everything the emulator starts from (catalog, capacity, accounts, keys, templates,
 * volumes, registry credentials, clusters, seeded pods, Hub repositories). The format is
 * documented in docs/emulator.md; it is checked here so a typo in a hand-written fixture fails at
 * load with the field's path.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import {
  Cloud,
  ClusterRole,
  ClusterType,
  DEFAULT_CONTAINER_DISK_GB,
  DataCenterRegion,
  GpuManufacturer,
  HubRepo,
  MIN_IDLE_TIMEOUT_SECONDS,
  MIN_MAX_LIFETIME_SECONDS,
  TemplateCategory,
  VolumeType,
  formatIssues,
  stringMap,
} from "../contract";
import defaultFixture from "./fixtures/default.json";


const DataCenterFixture = z.strictObject({
  id: z.string().min(1),
  name: z.string(),
  region: DataCenterRegion,
  countryCode: z.string().length(2).optional(),
  globalNetwork: z.boolean().default(false),
  networkVolumeTypes: z.array(VolumeType).default([]),
  compliance: z.array(z.string()).default([]),
});

const GpuTypeFixture = z.strictObject({
  id: z.string().min(1),
  name: z.string(),
  pool: z.string().nullable().default(null),
  manufacturer: GpuManufacturer,
  memory: z.int(),
  price: z.strictObject({ secure: z.number(), community: z.number(), serverless: z.number().optional() }),
  maxCount: z.strictObject({ secure: z.int(), community: z.int() }),
  /** Accounts allowed to deploy this type; others get 403 (the "pool access" case of the contract). */
  restrictedToAccounts: z.array(z.string()).optional(),
});

const CpuFlavorFixture = z.strictObject({
  id: z.string().min(1),
  name: z.string(),
  group: z.string(),
  vcpu: z.strictObject({ min: z.int(), max: z.int() }),
  ramGbPerVcpu: z.number(),
  price: z.strictObject({ securePerVcpu: z.number(), serverlessPerVcpu: z.number() }),
});

export const MachineFixture = z.strictObject({
  id: z.string().optional(),
  cudaVersion: z.string().nullable(),
  gpus: z.int().min(1),
  free: z.int().min(0).optional(),
  ramPerGpu: z.number().min(1),
  vcpuPerGpu: z.number().min(1),
});
export type MachineFixture = z.infer<typeof MachineFixture>;

const GpuCapacityFixture = z.strictObject({
  dataCenterId: z.string(),
  gpuTypeId: z.string(),
  cloud: Cloud,
  machines: z.array(MachineFixture),
});

const CpuCapacityFixture = z.strictObject({ dataCenterId: z.string(), cpuFlavorId: z.string(), availableVcpus: z.int().min(0) });

const RateLimitsFixture = z.strictObject({ minute: z.int().min(0), hour: z.int().min(0), day: z.int().min(0) });
export type RateLimits = z.infer<typeof RateLimitsFixture>;
export const DEFAULT_RATE_LIMITS: RateLimits = { minute: 600, hour: 20000, day: 200000 };

const UserFixture = z.strictObject({ id: z.string(), name: z.string(), email: z.string(), accountId: z.string() });

const AccountFixture = z.strictObject({
  id: z.string(),
  kind: z.enum(["user", "team"]),
  name: z.string(),
  ownerUserId: z.string(),
  memberUserIds: z.array(z.string()).default([]),
  balance: z.number().default(100),
  rateLimits: RateLimitsFixture.default(DEFAULT_RATE_LIMITS),
  exempt: z.boolean().default(false),
  maxIdleTimeoutSeconds: z.int().min(MIN_IDLE_TIMEOUT_SECONDS).default(3600),
  maxLifetimeSeconds: z.int().min(MIN_MAX_LIFETIME_SECONDS).default(86400),
  sshKeys: z.array(z.string()).default([]),
});

const ApiKeyFixture = z.strictObject({
  key: z.string().min(8),
  name: z.string().default("key"),
  userId: z.string(),
  accountId: z.string(),
  /** `*`, a family (`pods`), or a family's read half (`pods:read`). */
  scopes: z.array(z.string()).default(["*"]),
  expiresAt: z.string().optional(),
});

const SessionFixture = z.strictObject({ token: z.string().min(8), userId: z.string(), expiresAt: z.string().optional() });

const TemplateFixture = z.strictObject({
  id: z.string(),
  /** Owner; null for catalog templates that belong to no listed account. */
  accountId: z.string().nullable().default(null),
  name: z.string(),
  image: z.string(),
  args: z.string().default(""),
  disk: z.int().min(1).default(DEFAULT_CONTAINER_DISK_GB),
  env: stringMap.default({}),
  ports: z.array(z.string()).default([]),
  registry: z.string().nullable().default(null),
  mounts: z.strictObject({ persistent: z.strictObject({ size: z.int(), path: z.string() }).optional() }).default({}),
  serverless: z.boolean().default(false),
  public: z.boolean().default(false),
  source: z.enum(["official", "verified", "community"]).optional(),
  category: TemplateCategory.default("NVIDIA"),
  startSsh: z.boolean().default(true),
  startJupyter: z.boolean().default(false),
  allowedCudaVersions: z.array(z.string()).default([]),
});

/** What every record an account owns starts with. */
const ownedFields = { id: z.string(), accountId: z.string(), name: z.string() };

const NetworkVolumeFixture = z.strictObject({
  ...ownedFields,
  size: z.int(),
  dataCenter: z.string(),
  type: VolumeType.default("STANDARD"),
});

const GlobalVolumeFixture = z.strictObject({
  ...ownedFields,
  dataCenterIds: z.array(z.string()).default([]),
});

const PodFixture = z.strictObject({
  ...ownedFields,
  image: z.string(),
  args: z.string().default(""),
  disk: z.int().default(DEFAULT_CONTAINER_DISK_GB),
  env: stringMap.default({}),
  ports: z.array(z.string()).default([]),
  gpu: z.strictObject({ id: z.string(), count: z.int().min(1).default(1) }).optional(),
  cpu: z.strictObject({ id: z.string(), vcpuCount: z.int() }).optional(),
  cloud: Cloud.default("SECURE"),
  dataCenterId: z.string(),
  status: z.enum(["RUNNING", "EXITED"]).default("RUNNING"),
  startedSecondsAgo: z.number().min(0).default(3600),
  cluster: z
    .strictObject({
      id: z.string(),
      rank: z.int().nullable(),
      role: ClusterRole.optional(),
      ip: z.string().optional(),
    })
    .optional(),
});

/**
 * A registry credential. The fixture gives the password as its author wrote it (like the API
 * keys above); the registries store keeps only its SHA-256, and no answer carries either.
 */
const RegistryFixture = z.strictObject({
  ...ownedFields,
  username: z.string().min(1),
  password: z.string().min(1),
});

const ClusterFixture = z.strictObject({
  ...ownedFields,
  type: ClusterType,
});

// A Hub repository in a fixture is exactly its wire shape.
const HubRepoFixture = HubRepo;

export const FixtureSchema = z.strictObject({
  $comment: z.string().optional(),
  name: z.string().default("custom"),
  /** The key `startEmulator` returns and `compute-emulator` prints. Must be one of `apiKeys`. */
  defaultApiKey: z.string(),
  adminToken: z.string().optional(),
  dataCenters: z.array(DataCenterFixture).default([]),
  gpuTypes: z.array(GpuTypeFixture).default([]),
  cpuFlavors: z.array(CpuFlavorFixture).default([]),
  gpuCapacity: z.array(GpuCapacityFixture).default([]),
  cpuCapacity: z.array(CpuCapacityFixture).default([]),
  users: z.array(UserFixture).default([]),
  accounts: z.array(AccountFixture).default([]),
  apiKeys: z.array(ApiKeyFixture).default([]),
  sessions: z.array(SessionFixture).default([]),
  templates: z.array(TemplateFixture).default([]),
  networkVolumes: z.array(NetworkVolumeFixture).default([]),
  globalVolumes: z.array(GlobalVolumeFixture).default([]),
  registries: z.array(RegistryFixture).default([]),
  clusters: z.array(ClusterFixture).default([]),
  pods: z.array(PodFixture).default([]),
  hubRepos: z.array(HubRepoFixture).default([]),
});

export type Fixture = z.infer<typeof FixtureSchema>;
export type DataCenterFixture = z.infer<typeof DataCenterFixture>;
export type GpuTypeFixture = z.infer<typeof GpuTypeFixture>;
export type CpuFlavorFixture = z.infer<typeof CpuFlavorFixture>;
export type AccountFixture = z.infer<typeof AccountFixture>;
export type TemplateFixture = z.infer<typeof TemplateFixture>;
export type PodFixture = z.infer<typeof PodFixture>;
export type RegistryFixture = z.infer<typeof RegistryFixture>;
export type ClusterFixture = z.infer<typeof ClusterFixture>;
export type HubRepoFixture = z.infer<typeof HubRepoFixture>;

export class FixtureError extends Error {
  constructor(readonly violations: string[]) {
    super(`Invalid fixture:\n  ${violations.join("\n  ")}`);
  }
}

/** Checks shape and references (every key's account exists, every capacity names a catalog entry, ...). */
export function parseFixture(input: unknown): Fixture {
  const parsed = FixtureSchema.safeParse(input);
  if (!parsed.success) throw new FixtureError(formatIssues(parsed.error.issues));
  const fixture = parsed.data;
  const problems: string[] = [];
  const ids = (list: Array<{ id: string }>) => new Set(list.map((item) => item.id));
  const dataCenters = ids(fixture.dataCenters);
  const gpuTypes = ids(fixture.gpuTypes);
  const cpuFlavors = ids(fixture.cpuFlavors);
  const accounts = ids(fixture.accounts);
  const users = ids(fixture.users);
  const clusters = ids(fixture.clusters);
  const need = (set: Set<string>, id: string, where: string) => {
    if (!set.has(id)) problems.push(`${where}: unknown id "${id}"`);
  };
  // What the members of each collection name, in the order problems are listed (a list member
  // names one per item; null names none). Pods, with their optional members, come after.
  const references: Array<[keyof Fixture, Record<string, Set<string>>]> = [
    ["gpuCapacity", { dataCenterId: dataCenters, gpuTypeId: gpuTypes }],
    ["cpuCapacity", { dataCenterId: dataCenters, cpuFlavorId: cpuFlavors }],
    ["users", { accountId: accounts }],
    ["accounts", { ownerUserId: users, memberUserIds: users }],
    ["apiKeys", { userId: users, accountId: accounts }],
    ["sessions", { userId: users }],
    ["templates", { accountId: accounts }],
    ["networkVolumes", { accountId: accounts, dataCenter: dataCenters }],
    ["globalVolumes", { accountId: accounts }],
    ["registries", { accountId: accounts }],
    ["clusters", { accountId: accounts }],
  ];
  for (const [collection, members] of references) {
    (fixture[collection] as Array<Record<string, unknown>>).forEach((item, i) => {
      for (const [member, known] of Object.entries(members)) {
        const named = item[member];
        if (Array.isArray(named)) named.forEach((id: string, j) => need(known, id, `${collection}[${i}].${member}[${j}]`));
        else if (named !== null) need(known, named as string, `${collection}[${i}].${member}`);
      }
    });
  }
  fixture.pods.forEach((p, i) => {
    need(accounts, p.accountId, `pods[${i}].accountId`);
    need(dataCenters, p.dataCenterId, `pods[${i}].dataCenterId`);
    if (p.gpu) need(gpuTypes, p.gpu.id, `pods[${i}].gpu.id`);
    if (p.cpu) need(cpuFlavors, p.cpu.id, `pods[${i}].cpu.id`);
    if (!p.gpu === !p.cpu) problems.push(`pods[${i}]: exactly one of gpu or cpu`);
    if (p.cluster) need(clusters, p.cluster.id, `pods[${i}].cluster.id`);
  });
  // A cluster's compute is read off its members (clusters/store.ts), so they must agree on it.
  fixture.clusters.forEach((c, i) => {
    const members = fixture.pods.filter((p) => p.cluster?.id === c.id);
    if (members.length === 0) problems.push(`clusters[${i}]: no pod names it in cluster.id; a cluster needs member pods`);
    const shapes = new Set(members.map((p) => JSON.stringify([p.gpu?.id, p.gpu?.count, p.dataCenterId])));
    if (members.some((p) => !p.gpu) || shapes.size > 1) {
      problems.push(`clusters[${i}]: its member pods must be GPU pods of one GPU type and count, in one data center`);
    }
  });
  if (!fixture.apiKeys.some((k) => k.key === fixture.defaultApiKey)) {
    problems.push(`defaultApiKey: "${fixture.defaultApiKey}" is not one of apiKeys`);
  }
  if (problems.length > 0) throw new FixtureError(problems);
  return fixture;
}

export function loadFixture(source: string | object | undefined): Fixture {
  if (source === undefined) return parseFixture(defaultFixture);
  if (typeof source === "string") {
    let text: string;
    try {
      text = readFileSync(source, "utf8");
    } catch (error) {
      throw new Error(`Cannot read fixture file ${source}: ${(error as Error).message}`);
    }
    try {
      return parseFixture(JSON.parse(text));
    } catch (error) {
      if (error instanceof SyntaxError) throw new Error(`Fixture file ${source} is not valid JSON: ${error.message}`);
      throw error;
    }
  }
  return parseFixture(source);
}
