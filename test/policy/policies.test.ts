import type { PolicyResource, StackValidationArgs, StackValidationPolicy } from "@pulumi/policy";
import { BUDGET_POLICY, ESTIMATE_POLICY, costPolicies, type MonthReader } from "../../policy/policies";
import type { MonthToDate } from "../../policy/month";
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

/** This month so far, as the policies' month reader answers it (month.test.ts reads it from the service). */
const SO_FAR: MonthToDate = { actual: 120, ids: ["pod-1"], start: Date.UTC(2030, 4, 1), end: Date.UTC(2030, 5, 1), remainingHours: 100 };

function policies(estimates: StackResource[][] = [], month: MonthReader = async () => SO_FAR) {
  const [estimate, budget] = costPolicies(async (resources) => {
    estimates.push([...resources]);
    return estimateStack(resources, prices);
  }, month);
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
    expect(await run(policies().budget, stack)).toEqual({ notApplicable: "no budget: set compute-budget.maxDollarsPerHour or maxDollarsPerMonth in the policy configuration" });
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

  describe("maxDollarsPerMonth: billed so far this month + the hours left × the estimate after the change", () => {
    // 120 so far + 100 hours × 6.418 $/hr = 761.80.
    it("passes a month that stays within it", async () => {
      expect(await run(policies().budget, stack, { maxDollarsPerMonth: 761.8 })).toEqual({ violations: [] });
    });

    it("fails a month that would exceed it, naming the three figures", async () => {
      expect(await run(policies().budget, stack, { maxDollarsPerMonth: 700 })).toEqual({
        violations: [
          {
            message:
              "this month would cost $761.80, over the budget of $700.00 a month (compute-budget.maxDollarsPerMonth): $120.00 billed so far this month + 100.0 hours left × the stack's estimate of 6.418 $/hr after the change",
          },
        ],
      });
    });

    it("fails closed when this month's billing cannot be read", async () => {
      const result = await run(policies([], async () => ({ unavailable: "GET /v2/billing/pods answered 503" })).budget, stack, { maxDollarsPerMonth: 10_000 });
      expect(result).toEqual({
        violations: [{ message: "cannot check the budget of $10000.00 a month (compute-budget.maxDollarsPerMonth): the month-to-date actual could not be read (GET /v2/billing/pods answered 503)" }],
      });
    });

    it("is judged beside the hourly budget: each reports its own breach", async () => {
      const result = await run(policies().budget, stack, { maxDollarsPerHour: 6, maxDollarsPerMonth: 700 });
      expect(result.violations?.map((v) => v.message.split(":")[0])).toEqual([
        "stack estimate 6.418 $/hr exceeds the budget of 6.00 $/hr (compute-budget.maxDollarsPerHour); biggest",
        "this month would cost $761.80, over the budget of $700.00 a month (compute-budget.maxDollarsPerMonth)",
      ]);
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
