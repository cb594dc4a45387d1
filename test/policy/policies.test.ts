import type { PolicyResource, StackValidationArgs, StackValidationPolicy } from "@pulumi/policy";
import { BUDGET_POLICY, ESTIMATE_POLICY, costPolicies } from "../../policy/policies";
import { estimateStack, type StackResource } from "../../policy/stack-estimate";
import { GPU } from "../helpers/fixtures";
import { prices } from "./prices";


const urn = (type: string, name: string) => `urn:pulumi:dev::proj::${type}::${name}`;
function resource(type: string, name: string, props: Record<string, unknown>): PolicyResource {
  return { type, name, urn: urn(type, name), props } as unknown as PolicyResource;
}

const stack = [
  resource("pulumi-nodejs:dynamic/compute:Pod", "trainer", { gpu: { id: GPU.h100, count: 2 } }),
  resource("compute:index:Pod", "web", { gpu: { id: GPU.a5000 } }),
  resource("pulumi-nodejs:dynamic/compute:Sandbox", "scratch", { compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 } }),
  resource("aws:s3/bucket:Bucket", "logs", {}),
];

class NotApplicable extends Error {}

/** Runs one stack policy as the framework does; what it reported, or that it was not applicable. */
async function run(policy: StackValidationPolicy, resources: PolicyResource[], config: object = {}) {
  const violations: Array<{ message: string; urn?: string }> = [];
  const args = {
    resources,
    getConfig: () => config,
    stackTags: new Map(),
    notApplicable: (reason?: string) => {
      throw new NotApplicable(reason);
    },
  } as unknown as StackValidationArgs;
  try {
    await policy.validateStack(args, (message, urn) => violations.push(urn ? { message, urn } : { message }));
  } catch (error) {
    if (error instanceof NotApplicable) return { notApplicable: error.message };
    throw error;
  }
  return { violations };
}

function policies(estimates: StackResource[][] = []) {
  const [estimate, budget] = costPolicies(async (resources) => {
    estimates.push([...resources]);
    return estimateStack(resources, prices);
  });
  expect([estimate!.name, budget!.name]).toEqual([ESTIMATE_POLICY, BUDGET_POLICY]);
  return { estimate: estimate!, budget: budget! };
}

describe("compute-cost-estimate (advisory)", () => {
  it("reports each pod's and sandbox's estimate on it, then the stack's", async () => {
    const { estimate } = policies();
    expect(estimate.enforcementLevel).toBe("advisory");
    expect(await run(estimate, stack)).toEqual({
      violations: [
        { urn: stack[0]!.urn, message: `pod trainer: estimated 5.98 $/hr (2 × ${GPU.h100} on SECURE)` },
        { urn: stack[1]!.urn, message: `pod web: estimated 0.36 $/hr (1 × ${GPU.a5000} on SECURE)` },
        { urn: stack[2]!.urn, message: "sandbox scratch: estimated 0.078 $/hr (sandbox rate: 2 vCPU × 0.03 + 4 GB × 0.004 + 10 GB disk × 0.0002)" },
        { message: "stack estimate: 6.418 $/hr for 3 priced resources (biggest: pod trainer 5.98 $/hr, pod web 0.36 $/hr, sandbox scratch 0.078 $/hr)" },
      ],
    });
  });

  it("is not applicable to a stack without pods or sandboxes", async () => {
    expect(await run(policies().estimate, [stack[3]!])).toEqual({ notApplicable: "the stack has no pods or sandboxes" });
  });
});

describe("compute-budget (mandatory)", () => {
  it("is not applicable without a budget", async () => {
    expect(await run(policies().budget, stack)).toEqual({ notApplicable: "no budget: set compute-budget.maxDollarsPerHour in the policy configuration" });
  });

  it("passes a stack within its budget", async () => {
    const { budget } = policies();
    expect(budget.enforcementLevel).toBe("mandatory");
    expect(await run(budget, stack, { maxDollarsPerHour: 6.418 })).toEqual({ violations: [] });
  });

  it("fails a stack over its budget, naming the estimate, the budget and the biggest resources", async () => {
    expect(await run(policies().budget, stack, { maxDollarsPerHour: 6 })).toEqual({
      violations: [
        {
          message:
            "stack estimate 6.418 $/hr exceeds the budget of 6.00 $/hr (compute-budget.maxDollarsPerHour); biggest: pod trainer 5.98 $/hr, pod web 0.36 $/hr, sandbox scratch 0.078 $/hr",
        },
      ],
    });
  });

  it("fails closed when a resource has no estimate", async () => {
    const unpriced = resource("compute:index:Pod", "mystery", { gpu: { id: "NVIDIA Imaginary" } });
    const result = await run(policies().budget, [...stack, unpriced], { maxDollarsPerHour: 100 });
    expect(result).toEqual({
      violations: [
        {
          message:
            "cannot check the budget of 100.00 $/hr (compute-budget.maxDollarsPerHour): 1 of 4 priced resources have no estimate: pod mystery (no candidate can be placed (1 × NVIDIA Imaginary on SECURE: not in the GPU catalog)); the others come to 6.418 $/hr",
        },
      ],
    });
  });

  it("shares one estimate (one catalog read) with the estimate policy", async () => {
    const estimates: StackResource[][] = [];
    const { estimate, budget } = policies(estimates);
    await run(estimate, stack);
    await run(budget, stack, { maxDollarsPerHour: 10 });
    expect(estimates).toHaveLength(1);
  });
});
