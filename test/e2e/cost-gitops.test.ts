import * as path from "node:path";
import { mutations, runGitopsScript } from "./cost-policy";
import { createE2EStack, REPO_ROOT, type E2EStack } from "./harness";
import { GPU } from "../helpers/fixtures";
import { dollars, listPrices } from "../helpers/prices";

jest.setTimeout(10 * 60_000);

/**
 * examples/gitops through the real engine, its scripts run as CI runs them: the pull request's
 * preview and cost comment, the merge, and the drift check.
 */
describe("the GitOps example", () => {
  const name = "cost-gitops";
  let e2e: E2EStack;
  /** examples/gitops/index.ts: a web pod (an RTX A5000) and a sandbox (1 vCPU, 2 GB, 5 GB) on main; each trainer an H100. Priced from the catalog by the test. */
  let deployed: number;
  let trainer: number;
  beforeAll(async () => {
    e2e = await createE2EStack(name, { program: path.join(REPO_ROOT, "examples", "gitops") });
    const listed = await listPrices(e2e.emulator);
    deployed = listed.gpu(GPU.a5000) + listed.sandbox({ vcpuCount: 1, memoryInGb: 2, containerDiskInGb: 5 });
    trainer = listed.gpu(GPU.h100);
    await e2e.stack.setConfig("trainers", { value: "0" });
    await e2e.stack.up(); // main, as deployed: a web pod and a sandbox
  });
  afterAll(() => e2e?.dispose());

  it("a pull request adding one H100 pod: the Markdown names its price as the cost delta, and nothing changes", async () => {
    await e2e.stack.setConfig("trainers", { value: "1" });
    await e2e.control.clearRequests();
    const pr = await runGitopsScript(e2e, "pull-request.sh", name);
    expect(pr.code).toBe(0);
    expect(pr.stdout).toContain(`### Compute cost of this change: +${dollars(trainer)} $/hr`);
    expect(pr.stdout).toContain(`| before (as deployed) | ${dollars(deployed)} |\n| after (this change) | ${dollars(deployed + trainer)} |\n| **change** | **+${dollars(trainer)}** |`);
    expect(pr.stdout).toContain(`| pod trainer-0 | — | ${dollars(trainer)} | +${dollars(trainer)} |`);
    expect(pr.stdout).toContain("Within the budget of 10.00 $/hr.");
    expect(pr.stdout).toContain("| create | trainer-0 | `pulumi-nodejs:dynamic/compute:Pod` |  |");
    // Beside the estimate, what is deployed was billed in the whole hours before this one (the
    // web pod, deployed minutes ago; a sandbox has no billing route), read with GETs only.
    expect(pr.stdout).toMatch(/\| \*\*change\*\* \|.*\|\n\nLast 7 days to \d{4}-\d{2}-\d{2} \d{2}:00 UTC, actual: \$\d+\.\d+ billed for the 1 resource deployed now that bill[ .]/);
    expect(await mutations(e2e)).toEqual([]);
  });

  it("a pull request over the budget fails, and its Markdown says why", async () => {
    await e2e.stack.setConfig("trainers", { value: "4" });
    const pr = await runGitopsScript(e2e, "pull-request.sh", name);
    expect(pr.code).not.toBe(0);
    expect(deployed + 4 * trainer).toBeGreaterThan(10); // examples/gitops/budget.json's budget
    expect(pr.stdout).toContain(`**Over budget** — stack estimate ${dollars(deployed + 4 * trainer)} $/hr exceeds the budget of 10.00 $/hr (compute-budget.maxDollarsPerHour)`);
    expect(await mutations(e2e)).toEqual([]);
  });

  it("the merge deploys the change; the drift check passes, then fails once a pod is stopped by hand", async () => {
    await e2e.stack.setConfig("trainers", { value: "1" });
    const merge = await runGitopsScript(e2e, "merge.sh", name);
    expect(merge.code).toBe(0);
    expect((await e2e.stateIds()).pod).toHaveLength(2);

    expect(await runGitopsScript(e2e, "drift.sh", name)).toMatchObject({ code: 0, stdout: expect.stringContaining(`no drift: the service matches stack ${name}`) });

    const [podId] = (await e2e.stateIds()).pod;
    await fetch(`${e2e.emulator.url}/v2/pods/${podId}/action`, {
      method: "POST",
      headers: { authorization: `Bearer ${e2e.emulator.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "stop" }),
    });
    const drift = await runGitopsScript(e2e, "drift.sh", name);
    expect(drift.code).not.toBe(0);
    expect(drift.stderr).toContain(`drift: the service differs from stack ${name}`);
  });
});
