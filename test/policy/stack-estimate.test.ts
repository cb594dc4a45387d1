import { startEmulator, EmulatorControl } from "../../emulator";
import { policyClient } from "../../policy/settings";
import { estimateStack, estimateStackNow, type StackResource } from "../../policy/stack-estimate";
import { GPU } from "../helpers/fixtures";
import { useStarted } from "../helpers/suite";

const pod = (name: string, props: Record<string, unknown>): StackResource => ({ type: "compute:index:Pod", name, urn: `urn:pulumi:dev::p::compute:index:Pod::${name}`, props });
const sandbox: StackResource = {
  type: "compute:index:Sandbox",
  name: "scratch",
  urn: "urn:pulumi:dev::p::compute:index:Sandbox::scratch",
  props: { compute: { vcpuCount: 1, memoryInGb: 2, containerDiskInGb: 5 } },
};

const env = useStarted(async () => {
  const emulator = await startEmulator({ port: 0, profile: "fast", quiet: true });
  return { ...emulator, control: new EmulatorControl(emulator.url, emulator.adminToken) };
});

/** The environment the engine starts an analyzer with: the stack's configuration as PULUMI_CONFIG. */
function analyzerEnv(config: Record<string, string>): NodeJS.ProcessEnv {
  // A stray environment must not win over the stack's own configuration.
  return { PULUMI_CONFIG: JSON.stringify(config), COMPUTE_BASE_URL: "http://127.0.0.1:9", COMPUTE_API_KEY: "not-this-one" };
}

/** The list prices of the GPU types, read by the test itself from the emulator's catalog. */
async function securePrices(): Promise<(id: string) => number> {
  const answer = await fetch(`${env.url}/v2/catalog/gpus`, { headers: { authorization: `Bearer ${env.apiKey}` } });
  const { gpus } = (await answer.json()) as { gpus: Array<{ id: string; price: { secure: number } }> };
  return (id) => gpus.find((g) => g.id === id)!.price.secure;
}

/** The sandbox above at the rate docs/cost.md states (the catalog lists no sandbox price): 1 vCPU, 2 GB, 5 GB of disk. */
const SANDBOX_AT_DOCUMENTED_RATE = 1 * 0.03 + 2 * 0.004 + 5 * 0.0002;

describe("the stack's estimate read from the stack's service", () => {
  it("reads the GPU list once, with the stack's compute settings", async () => {
    await env.control.clearRequests();
    const stack = await estimateStackNow([pod("a", { gpu: { id: GPU.h100 } }), pod("b", { gpu: { id: GPU.a5000, count: 2 } }), sandbox], () =>
      policyClient(analyzerEnv({ "compute:baseUrl": env.url, "compute:apiKey": env.apiKey })),
    );
    expect(stack.unavailable).toEqual([]);
    expect((await env.control.requests()).map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v2/catalog/gpus"]);
    const secure = await securePrices();
    expect(stack.dollarsPerHour).toBeCloseTo(secure(GPU.h100) + 2 * secure(GPU.a5000) + SANDBOX_AT_DOCUMENTED_RATE, 4);
  });

  it("says why each pod has no estimate when the catalog refuses, never printing the key", async () => {
    const wrongKey = "cs_dev_wrong_key_0000";
    const stack = await estimateStackNow([pod("a", { gpu: { id: GPU.h100 } }), sandbox], () => policyClient(analyzerEnv({ "compute:baseUrl": env.url, "compute:apiKey": wrongKey })));
    expect(stack.unavailable.map((e) => e.name)).toEqual(["a"]);
    expect(stack.unavailable[0]!.outcome).toEqual({ ok: false, reason: expect.stringMatching(/^the catalog could not be read: .*401/) });
    expect(stack.dollarsPerHour).toBeCloseTo(SANDBOX_AT_DOCUMENTED_RATE, 4);
    expect(JSON.stringify(stack)).not.toContain(wrongKey);
  });
});

describe("a serverless endpoint in the stack", () => {
  it("adds its minimum workers' cost, from the same GPU list read", async () => {
    const endpoint: StackResource = {
      type: "compute:index:ServerlessEndpoint",
      name: "llm",
      urn: "urn:pulumi:dev::p::compute:index:ServerlessEndpoint::llm",
      props: { gpu: { pools: ["ADA_24"], excludedTypes: ["NVIDIA GeForce RTX 4090"] }, workers: { min: 2, max: 5 } },
    };
    const stack = await estimateStackNow([pod("a", { gpu: { id: GPU.h100 } }), endpoint], () =>
      policyClient(analyzerEnv({ "compute:baseUrl": env.url, "compute:apiKey": env.apiKey })),
    );
    expect(stack.unavailable).toEqual([]);
    const catalog = (await (await fetch(`${env.url}/v2/catalog/gpus`, { headers: { authorization: `Bearer ${env.apiKey}` } })).json()) as {
      gpus: Array<{ id: string; price: { secure: number; serverless: number } }>;
    };
    const price = (id: string) => catalog.gpus.find((g) => g.id === id)!.price;
    // What is left of the ADA_24 pool once the 4090 is excluded: the L4, at its serverless price, for 2 workers.
    expect(stack.dollarsPerHour).toBeCloseTo(price(GPU.h100).secure + 2 * price("NVIDIA L4").serverless, 4);
  });
});

describe("a cluster in the stack", () => {
  it("counts every node: podCount × gpuCountPerPod × the GPU's SECURE price, of the worst placement candidate", async () => {
    const cluster: StackResource = {
      type: "compute:index:Cluster",
      name: "train",
      urn: "urn:pulumi:dev::p::compute:index:Cluster::train",
      props: { type: "SLURM", compute: { gpuTypeId: GPU.a5000, gpuCountPerPod: 2, podCount: 4 }, placement: [{ gpuTypeId: GPU.a5000 }, { gpuTypeId: GPU.h100 }] },
    };
    const stack = await estimateStackNow([cluster], () => policyClient(analyzerEnv({ "compute:baseUrl": env.url, "compute:apiKey": env.apiKey })));
    expect(stack.unavailable).toEqual([]);
    const catalog = (await (await fetch(`${env.url}/v2/catalog/gpus`, { headers: { authorization: `Bearer ${env.apiKey}` } })).json()) as { gpus: Array<{ id: string; price: { secure: number } }> };
    const secure = (id: string) => catalog.gpus.find((g) => g.id === id)!.price.secure;
    expect(stack.dollarsPerHour).toBeCloseTo(4 * 2 * Math.max(secure(GPU.a5000), secure(GPU.h100)), 4);
  });
});

describe("a price ceiling", () => {
  it("leaves out the candidates over maxCostPerHour, which are never tried, so never billed", async () => {
    const price = await securePrices();
    const props = { gpu: { id: GPU.a5000 }, placement: [{ gpuTypeId: GPU.h100 }, { gpuTypeId: GPU.a5000 }] };
    const read = () => policyClient(analyzerEnv({ "compute:baseUrl": env.url, "compute:apiKey": env.apiKey }));
    expect((await estimateStackNow([pod("open", props)], read)).dollarsPerHour).toBeCloseTo(price(GPU.h100), 4);
    const capped = await estimateStackNow([pod("capped", { ...props, maxCostPerHour: price(GPU.h100) - 0.01 })], read);
    expect(capped.dollarsPerHour).toBeCloseTo(price(GPU.a5000), 4);
  });
});

describe("values a preview does not know yet", () => {
  it("are named, as the policy framework reports them", () => {
    // The framework's own proxy: reading an unknown value throws UnknownValueError with its path.
    const { unknownCheckingProxy, unknownStringValue } = require("@pulumi/policy/proxy") as {
      unknownCheckingProxy: (o: object) => Record<string, unknown>;
      unknownStringValue: unknown;
    };
    const props = unknownCheckingProxy({ gpu: { id: unknownStringValue, count: 1 } });
    const stack = estimateStack([pod("later", props), sandbox], { gpuTypes: [] });
    expect(stack.unavailable.map((e) => e.outcome)).toEqual([{ ok: false, reason: "gpu.id is not known until the update runs" }]);
  });
});
