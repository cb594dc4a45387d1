/**
 * The policies of the `compute-cost` pack (docs/cost.md), apart from the pack object itself
 * (pack.ts), so that tests run them without serving a pack:
 *
 * - `compute-cost-estimate`, advisory: each pod's and sandbox's estimate, then the stack's, as
 *   advisory lines of the preview (CrossGuard reports through violations only).
 * - `compute-budget`, mandatory, with `{"compute-budget": {"maxDollarsPerHour": N}}` in the
 *   policy configuration (`--policy-pack-config`): the preview fails when the stack's estimate
 *   exceeds N, naming the estimate, the budget and the biggest resources; with
 *   `maxDollarsPerMonth: M`, when the month-to-date actual plus the rest of the month at the
 *   estimate exceeds M, naming the three figures (month.ts). Without a budget it is not
 *   applicable.
 *
 * Both see the stack as it will be after the change (the engine's `AnalyzeStack` gets every
 * resource the program declares), and share one catalog read per analysis.
 */
import type { StackValidationArgs, StackValidationPolicy } from "@pulumi/policy";
import { describeEstimate } from "../contract/estimate";
import { policyClient } from "./settings";
import { budgetViolation, describeStack, estimateStackNow, type StackEstimate, type StackResource } from "./stack-estimate";
import { monthToDate, monthlyBudgetViolation, type MonthToDate } from "./month";

export const ESTIMATE_POLICY = "compute-cost-estimate";
export const BUDGET_POLICY = "compute-budget";

export interface BudgetConfig {
  maxDollarsPerHour?: number;
  maxDollarsPerMonth?: number;
}

/** How the policies estimate a stack; tests give their own. */
export type StackEstimator = (resources: readonly StackResource[]) => Promise<StackEstimate>;

/** What the stack's resources were billed this month, or why it could not be read; tests give their own. */
export type MonthReader = (resources: readonly StackResource[]) => Promise<MonthToDate | { unavailable: string }>;

const fromCatalog: StackEstimator = (resources) => estimateStackNow(resources, () => policyClient());

const fromBilling: MonthReader = async (resources) => {
  let client: ReturnType<typeof policyClient> | undefined;
  try {
    client = policyClient(); // a missing setting is a reason the gate cannot check, as any other
    return await monthToDate(resources, client, Date.now());
  } catch (error) {
    return { unavailable: error instanceof Error ? error.message : String(error) };
  } finally {
    await client?.close();
  }
};

/**
 * One catalog read per analysis: the framework runs a pack's stack policies one after the other,
 * in the order declared, on the same resources. The estimate policy hands its estimate to the
 * budget policy, which takes it only for the same resources and leaves nothing behind, so a
 * later analysis (another run in the same process) reads the catalog again.
 */
function handOver(estimator: StackEstimator) {
  let handed: { key: string; estimate: Promise<StackEstimate> } | undefined;
  const keyOf = (resources: readonly StackResource[]) => resources.map((r) => r.urn).join("\n");
  return {
    first: (resources: readonly StackResource[]) => {
      const estimate = estimator(resources);
      handed = { key: keyOf(resources), estimate };
      return estimate;
    },
    second: (resources: readonly StackResource[]) => {
      const taken = handed?.key === keyOf(resources) ? handed.estimate : undefined;
      handed = undefined;
      return taken ?? estimator(resources);
    },
    drop: () => {
      handed = undefined;
    },
  };
}

export function costPolicies(estimator: StackEstimator = fromCatalog, month: MonthReader = fromBilling): StackValidationPolicy[] {
  const estimate = handOver(estimator);
  return [
    {
      name: ESTIMATE_POLICY,
      description: "Prints what each pod and sandbox, and the whole stack, is expected to cost per hour at today's list prices (the worst placement candidate).",
      enforcementLevel: "advisory",
      validateStack: async (args: StackValidationArgs, reportViolation) => {
        const stack = await estimate.first(args.resources);
        if (stack.resources.length === 0) args.notApplicable("the stack has no pods or sandboxes");
        for (const resource of stack.resources) reportViolation(`${resource.kind} ${resource.name}: ${describeEstimate(resource.outcome)}`, resource.urn);
        reportViolation(describeStack(stack));
      },
    },
    {
      name: BUDGET_POLICY,
      description:
        "Fails the preview when the stack's estimated cost per hour exceeds maxDollarsPerHour, or when this month's billing so far plus the rest of the month at the estimate exceeds maxDollarsPerMonth.",
      enforcementLevel: "mandatory",
      configSchema: {
        properties: {
          maxDollarsPerHour: { type: "number", minimum: 0, description: "Largest estimated cost of the stack, in USD per hour." },
          maxDollarsPerMonth: {
            type: "number",
            minimum: 0,
            description: "Largest cost of the stack in a calendar month (UTC), in USD: billed so far this month + the remaining hours × the estimate after the change.",
          },
        },
      },
      validateStack: async (args: StackValidationArgs, reportViolation) => {
        const { maxDollarsPerHour, maxDollarsPerMonth } = args.getConfig<BudgetConfig>();
        if (maxDollarsPerHour === undefined && maxDollarsPerMonth === undefined) {
          estimate.drop();
          args.notApplicable("no budget: set compute-budget.maxDollarsPerHour or maxDollarsPerMonth in the policy configuration");
        }
        const stack = await estimate.second(args.resources);
        const hourly = maxDollarsPerHour === undefined ? undefined : budgetViolation(stack, maxDollarsPerHour);
        if (hourly) reportViolation(hourly);
        if (maxDollarsPerMonth !== undefined) {
          const monthly = monthlyBudgetViolation(stack, await month(args.resources), maxDollarsPerMonth);
          if (monthly) reportViolation(monthly);
        }
      },
    },
  ];
}
