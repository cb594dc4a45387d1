/** `compute serverless create --hub-id ...` against the emulator: what is sent, and what is not. */
import { defaultFixture, KEYS, type FixtureRepo } from "../helpers/fixtures";
import { useEmulator } from "./helpers";

const emu = useEmulator();
const fixture = defaultFixture();
const repo = (id: string): FixtureRepo => fixture.hubRepos.find((r) => r.id === id)!;
const poolOf = (gpuId: string) => fixture.gpuTypes.find((g) => g.id === gpuId)!.pool!;

interface EndpointView {
  id: string;
  name: string;
  image: string;
  disk: number;
  env: Record<string, string>;
  gpu: { pools: string[]; excludedTypes?: string[]; count: number; allowedCudaVersions: string[] };
  scaling: { type: string; queueDelay: number };
  type: string;
}

async function endpoints(): Promise<EndpointView[]> {
  const response = await fetch(`${emu.url}/v2/serverless`, { headers: { authorization: `Bearer ${emu.apiKey}` } });
  return ((await response.json()) as { endpoints: EndpointView[] }).endpoints;
}

async function creates(): Promise<Array<number | null>> {
  return (await emu.control.requests()).filter((r) => r.method === "POST" && r.path === "/v2/serverless").map((r) => r.status);
}

/** The types the endpoint can run on: those of its pools, less the excluded ones. */
function typesOf(endpoint: EndpointView): string[] {
  return fixture.gpuTypes
    .filter((g) => g.pool && endpoint.gpu.pools.includes(g.pool) && !(endpoint.gpu.excludedTypes ?? []).includes(g.id))
    .map((g) => g.id)
    .sort();
}

beforeEach(async () => {
  await emu.control.clearRequests();
});

test("creates an endpoint from the release: image, disk, env, GPU types mapped to pools", async () => {
  const source = repo("hub_662work");
  const r = await emu.run(["serverless", "create", "--hub-id", source.id, "--name", "my-llm"]);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe("");
  const list = await endpoints();
  const created = list.find((e) => e.name === "my-llm")!;
  expect(created).toMatchObject({
    type: "QUEUE",
    image: source.release!.image,
    disk: source.release!.config.containerDiskInGb,
    env: source.release!.config.env,
    scaling: { type: "QUEUE_DELAY", queueDelay: 4 },
    gpu: { count: source.release!.config.gpuCount },
  });
  // The release lists two types in two pools; the pools' other types are excluded.
  expect(new Set(created.gpu.pools)).toEqual(new Set(source.release!.config.gpuIds.map(poolOf)));
  expect(typesOf(created)).toEqual([...source.release!.config.gpuIds].sort());
  expect(created.gpu.excludedTypes?.length).toBeGreaterThan(0); // the fixture makes exclusion matter here
  // The table names what was created.
  expect(r.stdout).toMatch(new RegExp(`^ID\\s+${created.id}$`, "m"));
  expect(r.stdout).toMatch(/^Name\s+my-llm$/m);
  expect(r.stdout).toContain(source.release!.image);
  expect(r.stdout).toMatch(/^GPU types\s+NVIDIA H100 80GB HBM3, NVIDIA A100-SXM4-80GB$/m);
  expect(await creates()).toEqual([201]);
});

test("--hub-id takes owner/name; --json prints the endpoint object", async () => {
  const r = await emu.run(["serverless", "create", "--hub-id", "runpod-workers/worker-comfyui", "--name", "comfy", "--json"]);
  expect(r.code).toBe(0);
  const printed = JSON.parse(r.stdout) as EndpointView;
  const stored = (await endpoints()).find((e) => e.id === printed.id)!;
  expect(printed).toEqual(stored);
  expect(printed.image).toBe(repo("hub_ca1work").release!.image);
});

test("--gpu-id replaces the release's GPU types (repeatable, case-insensitive)", async () => {
  const r = await emu.run(["serverless", "create", "--hub-id", "hub_662work", "--name", "on-l4", "--gpu-id", "nvidia l4", "--gpu-id", "NVIDIA RTX A4000", "--json"]);
  expect(r.code).toBe(0);
  const created = JSON.parse(r.stdout) as EndpointView;
  expect(typesOf(created)).toEqual(["NVIDIA L4", "NVIDIA RTX A4000"]);
  expect(new Set(created.gpu.pools)).toEqual(new Set([poolOf("NVIDIA L4"), poolOf("NVIDIA RTX A4000")]));
});

test("a repository with no release: exit 1 naming it, and no create is sent", async () => {
  const unreleased = fixture.hubRepos.find((r) => r.release === null)!;
  const before = (await endpoints()).length;
  const r = await emu.run(["serverless", "create", "--hub-id", unreleased.id, "--name", "never"]);
  expect(r.code).toBe(1);
  expect(r.stdout).toBe("");
  expect(r.stderr).toBe(
    `error: Hub repository ${unreleased.owner}/${unreleased.name} (${unreleased.id}) has no release yet, so there is nothing to deploy; no endpoint was created\n`,
  );
  expect(await creates()).toEqual([]);
  expect((await endpoints()).length).toBe(before);
});

test("an unknown Hub id: exit 1 with the 404, no create", async () => {
  const r = await emu.run(["serverless", "create", "--hub-id", "hub_missing", "--name", "never"]);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/^error: GET \/v2\/hub\/repos\/hub_missing failed with 404 Not Found: /);
  expect(await creates()).toEqual([]);
});

test("an unknown --gpu-id: usage error (exit 2) naming it, no create", async () => {
  const r = await emu.run(["serverless", "create", "--hub-id", "hub_662work", "--name", "never", "--gpu-id", "NVIDIA H9000"]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr).toBe(
    'error: --gpu-id "NVIDIA H9000" is not a GPU type in the catalog (see "compute catalog gpus" for GPU type ids)\n' +
      '(run "compute serverless create --help" for usage)\n',
  );
  expect(await creates()).toEqual([]);
});

test("a --gpu-id without a GPU pool cannot run serverless: exit 2, no create", async () => {
  const poolless = fixture.gpuTypes.find((g) => !g.pool)!;
  const r = await emu.run(["serverless", "create", "--hub-id", "hub_662work", "--name", "never", "--gpu-id", poolless.id]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(`--gpu-id "${poolless.id}" belongs to no GPU pool`);
  expect(await creates()).toEqual([]);
});

test("a refused create (read-only key: 403) exits 1 with status and detail; nothing is created", async () => {
  const before = (await endpoints()).length;
  const r = await emu.run(["serverless", "create", "--hub-id", "hub_662work", "--name", "refused"], { COMPUTE_API_KEY: KEYS.devReadOnly });
  expect(r.code).toBe(1);
  expect(r.stdout).toBe("");
  expect(r.stderr).toMatch(/^error: POST \/v2\/serverless failed with 403 Forbidden: \S.*\n$/);
  expect(r.stderr).not.toContain(KEYS.devReadOnly);
  expect(await creates()).toEqual([403]);
  expect((await endpoints()).length).toBe(before);
});
