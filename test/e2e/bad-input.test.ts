import { createE2EStack, noIds, type E2EStack } from "./harness";
import { GPU } from "../helpers/fixtures";

jest.setTimeout(10 * 60_000);

describe("bad input fails at preview, before any API call", () => {
  let e2e: E2EStack;
  beforeAll(async () => {
    e2e = await createE2EStack("badinput");
  });
  afterAll(() => e2e?.dispose());
  beforeEach(() => e2e.control.clearRequests());

  async function expectNoApiMutation() {
    const creates = (await e2e.control.requests()).filter((r) => r.method !== "GET");
    expect(creates).toEqual([]);
    expect(await e2e.liveIds()).toEqual(noIds());
  }

  it("a pod: every invalid field is named at preview, and up sends no create", async () => {
    await e2e.declare({ pods: { bad: { image: "i", gpu: { id: GPU.a5000, count: 0 }, cpu: { id: "cpu3c", vcpuCount: 3 }, ports: ["8888"] } } });
    const text = String(await e2e.stack.preview().catch((e: Error) => e));
    expect(text).toMatch(/has a problem: gpu\.count: must be >= 1/);
    expect(text).toMatch(/has a problem: cpu\.vcpuCount: must be a power of two/);
    expect(text).toMatch(/has a problem: ports\[0\]: must be "<port>\/<protocol>"/);

    const up = String(await e2e.stack.up().catch((e: Error) => e));
    expect(up).toMatch(/gpu\.count: must be >= 1/);
    await expectNoApiMutation();
  });

  it("a cross-field rule is named too", async () => {
    await e2e.declare({ pods: { bad: { gpu: { id: GPU.a5000, allowedCudaVersions: ["12.4"], minCudaVersion: "12.1" } } } });
    const text = String(await e2e.stack.preview().catch((e: Error) => e));
    expect(text).toMatch(/image.*is required unless templateId is set/);
    expect(text).toMatch(/gpu\.minCudaVersion.*cannot be combined with a non-empty gpu\.allowedCudaVersions/);
    await expectNoApiMutation();
  });

  it("global networking on a CPU pod fails at preview, and up sends no create", async () => {
    await e2e.declare({ pods: { cpunet: { image: "alpine", cpu: { id: "cpu3c", vcpuCount: 2 }, globalNetworking: true } } });
    const text = String(await e2e.stack.preview().catch((e: Error) => e));
    expect(text).toMatch(/has a problem: globalNetworking: requires an NVIDIA GPU: a CPU pod cannot have global networking/);

    const up = String(await e2e.stack.up().catch((e: Error) => e));
    expect(up).toMatch(/globalNetworking.*requires an NVIDIA GPU/);
    await expectNoApiMutation();
  });

  it("shape and cross-field rules are named in the same preview", async () => {
    await e2e.declare({ pods: { cpucloud: { image: "alpine", cpu: { id: "cpu3c", vcpuCount: 2 }, cloud: "COMMUNITY", disk: 0 } } });
    const text = String(await e2e.stack.preview().catch((e: Error) => e));
    expect(text).toMatch(/has a problem: disk: must be >= 1/);
    expect(text).toMatch(/has a problem: cloud: must be SECURE on a CPU pod/);
    await expectNoApiMutation();
  });

  it("a sandbox: the provider's own label is reserved and counts against the 64", async () => {
    // 63 labels of the user's plus the owner label's key: 64 given, so neither rule of the
    // provider holds, while the wire limit (64) alone would have let them through.
    const labels: Record<string, string> = { "pulumi-compute/owner": "mine" };
    for (let i = 0; i < 63; i++) labels[`k${i}`] = "v";
    await e2e.declare({ sandboxes: { labelled: { image: "python", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 }, labels } } });
    const text = String(await e2e.stack.preview().catch((e: Error) => e));
    expect(text).toMatch(/labels\.pulumi-compute\/owner.*is reserved/);
    expect(text).toMatch(/labels.*must have at most 63 labels/);
    await expectNoApiMutation();
  });

  it("a sandbox: the lifetime rule is named, nothing is created", async () => {
    await e2e.declare({ sandboxes: { worse: { image: "python", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 }, maxLifetimeSeconds: 5 } } });
    const text = String(await e2e.stack.up().catch((e: Error) => e));
    expect(text).toMatch(/has a problem: maxLifetimeSeconds: must be >= 300/);
    await expectNoApiMutation();
  });

  it("a secret input that breaks a rule is named, never shown, in the preview's failure", async () => {
    await e2e.stack.setConfig("e2e:secretArgs", { value: "python s3cr3t-train.py --token tok-4242", secret: true });
    try {
      await e2e.declare({ pods: { leaky: { image: "i", gpu: { id: GPU.a5000 }, cmd: ["something", "else"] } } });
      const text = String(await e2e.stack.preview().catch((e: Error) => e));
      expect(text).toMatch(/has a problem: args: must describe the same command/);
      expect(text).not.toContain("s3cr3t");
      expect(text).not.toContain("tok-4242");
      await expectNoApiMutation();
    } finally {
      await e2e.stack.removeConfig("e2e:secretArgs");
    }
  });
});
