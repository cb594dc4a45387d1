import { GPU, defaultFixture } from "../helpers/fixtures";
import { dollars, listPrices, literally } from "../helpers/prices";
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
  /** Each resource's price and the stack's, derived by the test from the catalog (test/helpers/prices.ts), as printed. */
  let price: { trainer: string; a100s: string; web: string; scratch: string; stack: string; biggest: string };
  beforeAll(async () => {
    e2e = await createE2EStack("cost");
    const scratch = { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 };
    await e2e.declare({
      pods: {
        // Its worst candidate: 2 × H100.
        trainer: { image: "pytorch:2.4", gpu: { id: GPU.a100, count: 2 }, placement: [{ gpuTypeId: GPU.a100 }, { gpuTypeId: GPU.h100 }] },
        web: { image: "nginx:1.27", gpu: { id: GPU.a5000 } },
      },
      sandboxes: { scratch: { image: "python:3.12", compute: scratch } },
    });
    const listed = await listPrices(e2e.emulator);
    const figures = { trainer: Math.max(listed.gpu(GPU.h100, 2), listed.gpu(GPU.a100, 2)), a100s: listed.gpu(GPU.a100, 2), web: listed.gpu(GPU.a5000), scratch: listed.sandbox(scratch) };
    expect(figures.trainer).toBe(listed.gpu(GPU.h100, 2)); // the H100s are the worst candidate
    price = {
      trainer: dollars(figures.trainer),
      a100s: dollars(figures.a100s),
      web: dollars(figures.web),
      scratch: dollars(figures.scratch),
      stack: dollars(figures.trainer + figures.web + figures.scratch),
      biggest: `pod trainer ${dollars(figures.trainer)} $/hr, pod web ${dollars(figures.web)} $/hr, sandbox scratch ${dollars(figures.scratch)} $/hr`,
    };
  });
  beforeEach(() => e2e.control.clearRequests());
  afterAll(() => e2e?.dispose());

  it("under budget: the preview shows each resource's estimate and the stack's, and changes nothing", async () => {
    const preview = await previewWithPolicy(e2e, { "compute-budget": { maxDollarsPerHour: 10 } });
    expect(preview.code).toBe(0);
    // The provider's line, printed by check for each resource:
    expect(preview.output).toMatch(
      new RegExp(`\\[compute\\] pod trainer-[0-9a-f]{8}: ${literally(`estimated ${price.trainer} $/hr (worst of 2 candidates: 2 × ${GPU.h100} on SECURE ${price.trainer}, 2 × ${GPU.a100} on SECURE ${price.a100s})`)}`),
    );
    expect(preview.output).toMatch(new RegExp(`\\[compute\\] sandbox scratch-[0-9a-f]{8}: ${literally(`estimated ${price.scratch} $/hr`)}`));
    // The policy pack's, per resource and for the stack:
    expect(preview.output).toContain(`pod web: estimated ${price.web} $/hr`);
    expect(preview.output).toContain(`stack estimate: ${price.stack} $/hr for 3 priced resources (biggest: ${price.biggest})`);
    expect(preview.output).not.toMatch(/from \$PATH/);
    expect(await mutations(e2e)).toEqual([]);
  });

  it("over budget: the preview fails, naming the estimate, the budget and the biggest resources, and changes nothing", async () => {
    const preview = await previewWithPolicy(e2e, { "compute-budget": { maxDollarsPerHour: 5 } });
    expect(preview.code).not.toBe(0);
    expect(preview.output).toContain("[mandatory]  compute-budget");
    expect(preview.output).toContain(`stack estimate ${price.stack} $/hr exceeds the budget of 5.00 $/hr (compute-budget.maxDollarsPerHour); biggest: ${price.biggest}`);
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
    expect(output).toMatch(new RegExp(`\\[compute\\] pod trainer-[0-9a-f]{8}: ${literally(`estimated ${dollars(3.5 * 2)} $/hr`)}`));
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
    // The program's (test/e2e/programs/cost-yaml): an H100 pod and a 1 vCPU, 2 GB, 5 GB sandbox.
    const listed = await listPrices(e2e.emulator);
    const [trainer, scratch] = [listed.gpu(GPU.h100), listed.sandbox({ vcpuCount: 1, memoryInGb: 2, containerDiskInGb: 5 })];
    const under = await previewWithPolicy(e2e);
    expect(under.code).toBe(0);
    // The native plugin's check sends its line through the engine, attributed to the resource.
    expect(under.output).toMatch(new RegExp(`\\[compute\\] pod trainer-[0-9a-f]{8}: ${literally(`estimated ${dollars(trainer)} $/hr (1 × ${GPU.h100} on SECURE)`)}`));
    expect(under.output).toContain("(compute:index:Pod: trainer)");
    expect(under.output).toContain(`stack estimate: ${dollars(trainer + scratch)} $/hr for 2 priced resources`);

    // A budget just under the stack's estimate.
    const budget = Number(((Math.ceil((trainer + scratch) * 100) - 1) / 100).toFixed(2));
    const over = await previewWithPolicy(e2e, { "compute-budget": { maxDollarsPerHour: budget } });
    expect(over.code).not.toBe(0);
    expect(over.output).toContain(
      `stack estimate ${dollars(trainer + scratch)} $/hr exceeds the budget of ${budget.toFixed(2)} $/hr (compute-budget.maxDollarsPerHour); biggest: pod trainer ${dollars(trainer)} $/hr, sandbox scratch ${dollars(scratch)} $/hr`,
    );
    expect(await mutations(e2e)).toEqual([]);
  });
});
