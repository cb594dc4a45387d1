/**
 * What the suites of every folder share: the catalog and credentials of the emulator's default
 * fixture (emulator/fixtures/default.json), response bodies for scripted servers, and `sleep`.
 *
 * The fixture is read as a project file, not through the emulator's code, so expectations built
 * from it are independent of what they test. The named constants are written out (tests read
 * better with `GPU.h100` than with a lookup) and checked against the fixture when this module
 * loads: a fixture that drops one fails every suite that uses it, with the name, at once.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const ROOT = resolve(__dirname, "..", "..");

export interface FixtureRepo {
  id: string;
  owner: string;
  name: string;
  type: "POD" | "SERVERLESS";
  category: string;
  stars: number;
  views: number;
  deploys: number;
  createdAt: string;
  updatedAt: string;
  releasedAt: string | null;
  release: { tag: string; image: string; config: { gpuIds: string[]; gpuCount: number; containerDiskInGb: number; env: Record<string, string> } } | null;
}

export interface FixtureGpu {
  id: string;
  name: string;
  pool?: string | null;
  memory: number;
}

/** The members of the default fixture the suites read (docs/emulator.md "Fixture format"). */
export interface DefaultFixture {
  defaultApiKey: string;
  hubRepos: FixtureRepo[];
  gpuTypes: FixtureGpu[];
  dataCenters: Array<{ id: string; name: string; region: string }>;
  cpuFlavors: Array<{ id: string }>;
  templates: Array<{ id: string; public?: boolean }>;
  apiKeys: Array<{ key: string }>;
  sessions: Array<{ token: string }>;
}

/** A fresh copy of the emulator's default fixture on every call (a test may change its copy). */
export function defaultFixture(): DefaultFixture {
  return JSON.parse(readFileSync(join(ROOT, "emulator", "fixtures", "default.json"), "utf8"));
}

/** GPU type ids of the default fixture. */
export const GPU = {
  rtx4090: "NVIDIA GeForce RTX 4090",
  a5000: "NVIDIA RTX A5000",
  a6000: "NVIDIA RTX A6000",
  a100: "NVIDIA A100-SXM4-80GB",
  h100: "NVIDIA H100 80GB HBM3",
  h200: "NVIDIA H200",
  b200: "NVIDIA B200",
  mi300x: "AMD Instinct MI300X OAM",
  l4: "NVIDIA L4",
} as const;

/** Credentials of the default fixture: its API keys, then its console sessions. */
export const KEYS = {
  dev: "cs_dev_4f1c2a9e7b3d5086",
  devReadOnly: "cs_dev_readonly_6b2e91d4",
  devNoSandboxes: "cs_dev_nosandbox_3a7c55e0",
  devExpired: "cs_dev_expired_91e0c3b7",
  team: "cs_team_ml_2d8f6a1c",
  alice: "cs_alice_5e9a0b7d",
  other: "cs_other_7e5b3f90",
  sessionDev: "cs_session_dev_5c0e8d21",
  sessionOther: "cs_session_other_b41f7a09",
} as const;

{
  const fixture = defaultFixture();
  const gpuIds = new Set(fixture.gpuTypes.map((g) => g.id));
  const credentials = new Set([...fixture.apiKeys.map((k) => k.key), ...fixture.sessions.map((s) => s.token)]);
  const missing = [
    ...Object.entries(GPU).filter(([, id]) => !gpuIds.has(id)).map(([name]) => `GPU.${name}`),
    ...Object.entries(KEYS).filter(([, key]) => !credentials.has(key)).map(([name]) => `KEYS.${name}`),
  ];
  if (missing.length > 0) throw new Error(`test/helpers/fixtures.ts: not in emulator/fixtures/default.json: ${missing.join(", ")}`);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The container members of a pod created without a command, a disk or mounts, as the seed answers them. */
export const podDefaults = () => ({ args: "", cmd: [], entrypoint: [], disk: 20, mounts: {} });

/** A Pod as the service answers it (seed shape), enough for the SDK's response schema. */
export function podResponse(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "pod-1",
    name: "trainer",
    status: "PROVISIONING",
    actions: ["stop", "terminate"],
    image: "img:1",
    ...podDefaults(),
    ports: [],
    env: {},
    registry: null,
    gpu: { id: GPU.a100, count: 1, vcpuCount: 8, memory: 64 },
    cloud: "SECURE",
    dataCenterId: "US-TX-1",
    cudaVersion: "12.4",
    ssh: { proxy: null, direct: null },
    template: null,
    cost: 1.99,
    locked: false,
    globalNetworking: { enabled: false },
    runtime: null,
    createdAt: new Date().toISOString(),
    startedAt: null,
    ...overrides,
  };
}

/** A Sandbox as the service answers it (seed shape), enough for the SDK's response schema. */
export function sandboxResponse(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    id: "sb-1",
    name: "worker",
    state: "RUNNING",
    templateId: null,
    image: "python:3.12",
    dataCenterId: "US-TX-1",
    compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1, costPerHr: 0.1 },
    ports: [],
    egressPolicy: { mode: "ALLOW_ALL", allow: [] },
    idleTimeoutSeconds: 600,
    maxLifetimeSeconds: 3600,
    lastActivityAt: now,
    idleExpiresAt: now,
    expiresAt: now,
    labels: {},
    startedAt: now,
    terminationReason: null,
    terminatedAt: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}
