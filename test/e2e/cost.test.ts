import { GPU, defaultFixture } from "../helpers/fixtures";
import { mutations, previewWithPolicy } from "./cost-policy";
import { createE2EStack, type E2EStack } from "./harness";

jest.setTimeout(10 * 60_000);

/**
 * What a stack costs, at preview, through the real engine: the provider's estimate line per
 * resource, and the cost policy pack (policy/) advisory by default and a budget gate with
 * `compute-budget.maxDollarsPerHour`. A preview never changes anything on the service.
 */
describe("a TypeScript stack (dynamic resources) under the cost policy pack", () => {
  let e2e: E2EStack;
  beforeAll(async () => {
    e2e = await createE2EStack("cost");
    await e2e.declare({
      pods: {
        // Worst candidate: 2 × H100 at 2.99 = 5.98 $/hr.
        trainer: { image: "pytorch:2.4", gpu: { id: GPU.a100, count: 2 }, placement: [{ gpuTypeId: GPU.a100 }, { gpuTypeId: GPU.h100 }] },
        web: { image: "nginx:1.27", gpu: { id: GPU.a5000 } }, // 0.36 $/hr
      },
      sandboxes: { scratch: { image: "python:3.12", compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 } } }, // 0.078 $/hr
    });
  });
  beforeEach(() => e2e.control.clearRequests());
  afterAll(() => e2e?.dispose());

  it("under budget: the preview shows each resource's estimate and the stack's, and changes nothing", async () => {
    const preview = await previewWithPolicy(e2e, { "compute-budget": { maxDollarsPerHour: 10 } });
    expect(preview.code).toBe(0);
    // The provider's line, printed by check for each resource:
    expect(preview.output).toMatch(new RegExp(`\\[compute\\] pod trainer-[0-9a-f]{8}: estimated 5\\.98 \\$/hr \\(worst of 2 candidates: 2 × ${GPU.h100} on SECURE 5\\.98, 2 × ${GPU.a100} on SECURE 3\\.48\\)`));
    expect(preview.output).toMatch(/\[compute\] sandbox scratch-[0-9a-f]{8}: estimated 0\.078 \$\/hr/);
    // The policy pack's, per resource and for the stack:
    expect(preview.output).toContain("pod web: estimated 0.36 $/hr");
    expect(preview.output).toContain("stack estimate: 6.418 $/hr for 3 priced resources (biggest: pod trainer 5.98 $/hr, pod web 0.36 $/hr, sandbox scratch 0.078 $/hr)");
    expect(preview.output).not.toMatch(/from \$PATH/);
    expect(await mutations(e2e)).toEqual([]);
  });

  it("over budget: the preview fails, naming the estimate, the budget and the biggest resources, and changes nothing", async () => {
    const preview = await previewWithPolicy(e2e, { "compute-budget": { maxDollarsPerHour: 5 } });
    expect(preview.code).not.toBe(0);
    expect(preview.output).toContain("[mandatory]  compute-budget");
    expect(preview.output).toContain(
      "stack estimate 6.418 $/hr exceeds the budget of 5.00 $/hr (compute-budget.maxDollarsPerHour); biggest: pod trainer 5.98 $/hr, pod web 0.36 $/hr, sandbox scratch 0.078 $/hr",
    );
    expect(await mutations(e2e)).toEqual([]);
  });

  it("a budget that is not a number is refused, naming the field", async () => {
    const preview = await previewWithPolicy(e2e, { "compute-budget": { maxDollarsPerHour: "ten" } });
    expect(preview.code).not.toBe(0);
    expect(preview.output).toMatch(/compute-budget: maxDollarsPerHour: Invalid type\. Expected: number, given: string/);
  });

  it("a price change in the catalog alone changes the estimate, never the plan", async () => {
    await e2e.stack.up();
    const fixture = defaultFixture() as unknown as { gpuTypes: Array<{ id: string; price: { secure: number } }> };
    fixture.gpuTypes.find((g) => g.id === GPU.h100)!.price.secure = 3.5;
    // The new fixture replaces the emulator's world; a preview without --refresh reads no pod.
    await e2e.control.loadFixture(fixture);
    let output = "";
    const preview = await e2e.stack.preview({ onOutput: (text) => (output += text) });
    expect(preview.changeSummary).toEqual({ same: 4 });
    expect(output).toMatch(/\[compute\] pod trainer-[0-9a-f]{8}: estimated 7\.00 \$\/hr/);
  });
});

describe("a YAML stack (the native plugin's types) under the cost policy pack", () => {
  let e2e: E2EStack;
  beforeAll(async () => {
    e2e = await createE2EStack("cost-yaml", { program: "cost-yaml" });
  });
  beforeEach(() => e2e.control.clearRequests());
  afterAll(() => e2e?.dispose());

  it("shows the estimates, and fails over budget, without changing anything", async () => {
    const under = await previewWithPolicy(e2e);
    expect(under.code).toBe(0);
    // The native plugin's check sends its line through the engine, attributed to the resource.
    expect(under.output).toMatch(/\[compute\] pod trainer-[0-9a-f]{8}: estimated 2\.99 \$\/hr \(1 × NVIDIA H100 80GB HBM3 on SECURE\)/);
    expect(under.output).toContain("(compute:index:Pod: trainer)");
    expect(under.output).toContain("stack estimate: 3.029 $/hr for 2 priced resources");

    const over = await previewWithPolicy(e2e, { "compute-budget": { maxDollarsPerHour: 3 } });
    expect(over.code).not.toBe(0);
    expect(over.output).toContain("stack estimate 3.029 $/hr exceeds the budget of 3.00 $/hr (compute-budget.maxDollarsPerHour); biggest: pod trainer 2.99 $/hr, sandbox scratch 0.039 $/hr");
    expect(await mutations(e2e)).toEqual([]);
  });
});
