import { createE2EStack, type E2EStack } from "./harness";

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
    expect(await e2e.liveIds()).toEqual({ pods: [], sandboxes: [] });
  }

  it("a pod: every invalid field is named at preview, and up sends no create", async () => {
    await e2e.declare({ pods: { bad: { image: "i", gpu: { id: "NVIDIA RTX A5000", count: 0 }, cpu: { id: "cpu3c", vcpuCount: 3 }, ports: ["8888"] } } });
    const text = String(await e2e.stack.preview().catch((e: Error) => e));
    expect(text).toMatch(/property gpu\.count value .* has a problem: must be >= 1/);
    expect(text).toMatch(/property cpu\.vcpuCount value .* has a problem: must be a power of two/);
    expect(text).toMatch(/property ports\[0\] value .* has a problem: must be "<port>\/<protocol>"/);

    const up = String(await e2e.stack.up().catch((e: Error) => e));
    expect(up).toMatch(/gpu\.count .* must be >= 1/);
    await expectNoApiMutation();
  });

  it("a cross-field rule is named too", async () => {
    await e2e.declare({ pods: { bad: { gpu: { id: "NVIDIA RTX A5000", allowedCudaVersions: ["12.4"], minCudaVersion: "12.1" } } } });
    const text = String(await e2e.stack.preview().catch((e: Error) => e));
    expect(text).toMatch(/image.*is required unless templateId is set/);
    expect(text).toMatch(/gpu\.minCudaVersion.*cannot be combined with a non-empty gpu\.allowedCudaVersions/);
    await expectNoApiMutation();
  });

  it("a sandbox: the lifetime rule is named, nothing is created", async () => {
    await e2e.declare({ sandboxes: { worse: { image: "python", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 }, maxLifetimeSeconds: 5 } } });
    const text = String(await e2e.stack.up().catch((e: Error) => e));
    expect(text).toMatch(/property maxLifetimeSeconds value .* has a problem: must be >= 300/);
    await expectNoApiMutation();
  });
});
