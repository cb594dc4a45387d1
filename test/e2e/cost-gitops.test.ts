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

  /** The id of the stack's pod `pod` (its URN's last part), from the state. */
  async function podIdOf(pod: string): Promise<string> {
    const resources = (await e2e.stack.exportStack()).deployment.resources as Array<{ urn: string; id?: string }>;
    return resources.find((resource) => resource.urn.endsWith(`::${pod}`))!.id!;
  }

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

    const podId = await podIdOf("web");
    await fetch(`${e2e.emulator.url}/v2/pods/${podId}/action`, {
      method: "POST",
      headers: { authorization: `Bearer ${e2e.emulator.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "stop" }),
    });
    const drift = await runGitopsScript(e2e, "drift.sh", name);
    expect(drift.code).not.toBe(0);
    expect(drift.stderr).toContain(`drift: the service differs from stack ${name}`);
  });

  it("the scheduled reaper: a dry run changes nothing; --apply stops the trainer past its lifetime, and nothing else", async () => {
    const trainerId = await podIdOf("trainer-0");
    await e2e.control.advance(8 * 3600_000 + 60_000); // past examples/gitops/index.ts's 8 hours, on the emulator's clock
    await e2e.control.clearRequests();
    const dry = await runGitopsScript(e2e, "reap.sh", name);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^pod trainer-0-\\w+ \\(${trainerId}, compute-example-gitops/${name}\\): STOP, lifetime reached at .+: would be stopped \\(dry run\\)$`, "m"));
    expect(await mutations(e2e)).toEqual([]);

    const applied = await runGitopsScript(e2e, "reap.sh", name, ["--apply"]);
    expect(applied).toMatchObject({ code: 0, stdout: expect.stringMatching(/: stopped\n1 resource with a lifetime; 1 due and handled\n$/) });
    expect((await mutations(e2e)).every((request) => request.includes(trainerId))).toBe(true);
    const live = (await (await fetch(`${e2e.emulator.url}/v2/pods/${trainerId}`, { headers: { authorization: `Bearer ${e2e.emulator.apiKey}` } })).json()) as { status: string };
    expect(live.status).toBe("EXITED");
  });
});

