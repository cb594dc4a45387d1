import { costReport, previewResources, stateResources, type PreviewDigest, type StateExport } from "../../policy/cost-report";
import { estimateStack } from "../../policy/stack-estimate";
import { GPU } from "../helpers/fixtures";
import { prices } from "./prices";


const POD = "pulumi-nodejs:dynamic/compute:Pod";
const urn = (name: string, type = POD) => `urn:pulumi:dev::proj::${type}::${name}`;
const web = { type: POD, inputs: { name: "web-1", image: "web:1", gpu: { id: GPU.a5000 }, __provider: "…", ownerMark: "m1" } };

const state: StateExport = {
  deployment: {
    resources: [
      { urn: urn("proj-dev", "pulumi:pulumi:Stack"), type: "pulumi:pulumi:Stack" },
      { urn: urn("web"), ...web },
      // The old half of a replacement a failed run left: no longer the stack's.
      { urn: urn("web"), ...web, delete: true },
    ],
  },
};

/** The preview of a change adding one H100 pod and changing the web pod's image. */
const preview: PreviewDigest = {
  steps: [
    { op: "same", urn: urn("proj-dev", "pulumi:pulumi:Stack"), newState: { type: "pulumi:pulumi:Stack" } },
    { op: "update", urn: urn("web"), oldState: web, newState: { type: POD, inputs: { ...web.inputs, image: "web:2", ownerMark: "m2" } } },
    { op: "create", urn: urn("trainer"), newState: { type: POD, inputs: { name: "trainer-1", image: "pytorch", gpu: { id: GPU.h100 } } } },
  ],
  changeSummary: { create: 1, update: 1, same: 1 },
};

function report(extra: Partial<Parameters<typeof costReport>[0]> = {}) {
  return costReport({ before: estimateStack(stateResources(state), prices), after: estimateStack(previewResources(preview), prices), preview, ...extra });
}

describe("the pull request's cost report", () => {
  it("names the cost delta of adding one H100 pod: that pod's price", () => {
    const markdown = report();
    expect(markdown).toContain("### Compute cost of this change: +2.99 $/hr");
    expect(markdown).toContain("| before (as deployed) | 0.36 |\n| after (this change) | 3.35 |\n| **change** | **+2.99** |");
    expect(markdown).toContain("| pod trainer | — | 2.99 | +2.99 |\n| pod web | 0.36 | 0.36 | 0.00 |");
  });

  it("lists the planned changes with the inputs each update changes (not the provider's bookkeeping)", () => {
    expect(report()).toContain(
      "| operation | resource | type | changed inputs |\n| --- | --- | --- | --- |\n" + `| create | trainer | \`${POD}\` |  |\n| update | web | \`${POD}\` | image |`,
    );
  });

  it("says whether the change keeps to the budget, and that a failed preview failed", () => {
    expect(report({ maxDollarsPerHour: 5 })).toContain("Within the budget of 5.00 $/hr.");
    const over = report({ maxDollarsPerHour: 3, previewExitCode: 1 });
    expect(over).toContain("**Over budget** — stack estimate 3.35 $/hr exceeds the budget of 3.00 $/hr (compute-budget.maxDollarsPerHour); biggest: pod trainer 2.99 $/hr, pod web 0.36 $/hr.");
    expect(over).toContain("**The preview failed** (exit code 1).");
  });

  it("puts what the stack deployed now was billed lately beside the estimate, most first, or why it could not be read", () => {
    const byUrn = new Map([
      [urn("web"), 60.48],
      [urn("cache"), 1.5],
    ]);
    expect(report({ actual: { days: 7, until: "2030-05-08T09:00:00.000Z", byUrn } })).toContain(
      "| **change** | **+2.99** |\n\nLast 7 days to 2030-05-08 09:00 UTC, actual: $61.98 billed for the 2 resources deployed now that bill (most: pod web $60.48, resource cache $1.50). Resources removed earlier are not counted, and billing may lag by hours.",
    );
    expect(report({ actual: { days: 7, until: "2030-05-08T09:00:00.000Z", unavailable: "GET /v2/billing/pods answered 403 Forbidden" } })).toContain(
      "Last 7 days to 2030-05-08 09:00 UTC, actual: unavailable (GET /v2/billing/pods answered 403 Forbidden).",
    );
    expect(report()).not.toContain("Last 7 days");
  });

  it("a removed pod lowers the estimate by its price", () => {
    const removal: PreviewDigest = { steps: [{ op: "delete", urn: urn("web"), oldState: web }] };
    const markdown = costReport({ before: estimateStack(stateResources(state), prices), after: estimateStack(previewResources(removal), prices), preview: removal });
    expect(markdown).toContain("### Compute cost of this change: -0.36 $/hr");
    expect(markdown).toContain("| pod web | 0.36 | — | -0.36 |");
    expect(markdown).toContain("| delete | web |");
  });
});
