import { readdirSync, readFileSync, rmSync } from "node:fs";
import * as path from "node:path";
import { parseOwnerMark, POD_OWNER_ENV, SANDBOX_OWNER_LABEL } from "../../sdk";
import { eventually } from "../helpers/eventually";
import { GPU } from "../helpers/fixtures";
import { dollars, listPrices } from "../helpers/prices";
import { mutations, runGitopsScript } from "./cost-policy";
import { createE2EStack, REPO_ROOT, type E2EStack } from "./harness";
import { startPostgres, type PostgresBackend } from "./postgres";

jest.setTimeout(15 * 60_000);

const GITOPS = path.join(REPO_ROOT, "examples", "gitops");
const PROJECT = "compute-example-gitops";
const LOCKED = "the stack is currently locked by 1 lock(s)";

/**
 * examples/gitops on the backend a team shares, a real PostgreSQL server this suite starts and
 * stops (scripts/postgres.sh), its scripts run as CI jobs run them: two merges at once, pull
 * requests previewed and tried in review stacks at once, and the database dying in the middle
 * of a merge. Every case ends by counting what the service holds by owner mark and what the
 * state holds.
 */
describe("the GitOps flow on a shared PostgreSQL state backend", () => {
  const name = "team";
  let pg: PostgresBackend;
  let e2e: E2EStack;

  beforeAll(async () => {
    pg = await startPostgres();
    e2e = await createE2EStack(name, { program: GITOPS, store: pg });
  });
  afterEach(async () => {
    // A case that failed half-way may have left the clock frozen, a merge running, or the database stopped.
    await e2e.control.unfreezeClock();
    await Promise.allSettled(running.splice(0));
    await pg.start().catch(() => undefined); // fails when it runs already
    await e2e.cancel().catch(() => undefined);
    await e2e.cleanSlate();
  });
  afterAll(async () => {
    try {
      await e2e?.dispose();
    } finally {
      await pg?.remove();
      // A review stack a failed case did not remove leaves its settings file in the example's folder.
      for (const file of readdirSync(GITOPS).filter((f) => /^Pulumi\.pr-\d+\.yaml$/.test(f))) rmSync(path.join(GITOPS, file));
    }
  });

  /** Every merge a case started, so that none outlives it. */
  const running: Array<Promise<unknown>> = [];
  const merge = () => {
    const job = runGitopsScript(e2e, "merge.sh", name);
    running.push(job);
    return job;
  };
  const createCount = async (apiPath: string) => (await e2e.control.requests()).filter((r) => r.method === "POST" && r.path === apiPath && r.status === 201).length;
  /** Until the merge's two pod creates and one sandbox create are answered, and the provider has polled both since. */
  const untilCreatesAnswered = () =>
    eventually(
      "the merge's creates answered and its waits begun",
      async () => {
        const requests = await e2e.control.requests();
        const lastPost = requests.map((r) => r.method).lastIndexOf("POST");
        const polled = requests.slice(lastPost + 1).filter((r) => r.method === "GET");
        return (await createCount("/v2/pods")) === 2 && (await createCount("/v2/sandboxes")) === 1 && polled.some((r) => r.path.startsWith("/v2/pods")) && polled.some((r) => r.path.startsWith("/v2/sandboxes"));
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );

  /** How many live pods and sandboxes carry each owner mark's `project/stack/name`. */
  async function ownedCounts(): Promise<Record<string, number>> {
    const get = async <T>(apiPath: string) => (await (await fetch(`${e2e.emulator.url}${apiPath}`, { headers: { authorization: `Bearer ${e2e.emulator.apiKey}` } })).json()) as T;
    const marks = [
      ...(await get<{ pods: Array<{ env?: Record<string, string> }> }>("/v2/pods")).pods.map((pod) => pod.env?.[POD_OWNER_ENV]),
      ...(await get<{ sandboxes: Array<{ labels?: Record<string, string> }> }>("/v2/sandboxes")).sandboxes.map((sandbox) => sandbox.labels?.[SANDBOX_OWNER_LABEL]),
    ];
    const counts: Record<string, number> = {};
    for (const mark of marks) {
      const label = parseOwnerMark(mark)?.label ?? "(no owner mark)";
      counts[label] = (counts[label] ?? 0) + 1;
    }
    return counts;
  }
  const oneEach = (stack: string, names: string[]) => Object.fromEntries(names.map((resource) => [`${PROJECT}/${stack}/${resource}`, 1]));

  /** The state and the service agree: every live pod and sandbox is in the state, and nothing is pending. */
  async function expectStateIsTheService(): Promise<void> {
    const [state, live] = await Promise.all([e2e.stateIds(), e2e.liveIds()]);
    expect(state).toEqual(live);
    expect((await pg.latest(name)).pending_operations ?? []).toEqual([]);
  }

  it("two merges: the second job, started while the first holds the lock, stops at once without touching the service; a retry afterwards changes nothing", async () => {
    await e2e.stack.setAllConfig({ trainers: { value: "1" } });
    // With the emulator's clock standing still, the first job's pods and sandbox stay in their
    // first state: it waits, holding the lock, and every mutation the log gains once its creates
    // are answered is the second's.
    await e2e.control.freezeClock();
    const first = merge();
    await untilCreatesAnswered();
    expect(await pg.locks(name)).toHaveLength(1);
    const before = (await mutations(e2e)).length;
    const second = await merge();
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(LOCKED);
    expect(second.stdout + second.stderr).not.toContain(pg.password);
    expect((await mutations(e2e)).length).toBe(before);
    expect(await pg.locks(name)).toHaveLength(1); // the first's, untouched

    await e2e.control.unfreezeClock();
    expect((await first).code).toBe(0);
    expect(await pg.locks(name)).toEqual([]);
    expect(await ownedCounts()).toEqual(oneEach(name, ["web", "trainer-0", "scratch"]));
    await expectStateIsTheService();

    await e2e.control.clearRequests();
    const stateBefore = await e2e.stateIds();
    const retry = await merge();
    expect(retry.code).toBe(0);
    expect(retry.stdout).toMatch(/Resources:\s+\d+ unchanged/);
    expect(await mutations(e2e)).toEqual([]);
    expect(await e2e.stateIds()).toEqual(stateBefore);
  });

  it("two merges started in the same instant never both run, and what ran is all in the state", async () => {
    await e2e.stack.setAllConfig({ trainers: { value: "1" } });
    // With the emulator's clock standing still, a job that got the lock waits for its pods until
    // the clock moves: it cannot finish, and free the lock, before the other job has tried it.
    await e2e.control.freezeClock();
    const jobs = [merge(), merge()];
    let timer: NodeJS.Timeout | undefined;
    const firstEnded = await Promise.race([...jobs.map((job) => job.then(() => "a job ended")), new Promise((resolve) => (timer = setTimeout(resolve, 300_000, "neither job ended in 5 minutes")))]);
    clearTimeout(timer);
    expect(firstEnded).toBe("a job ended"); // the one refused, at once
    await e2e.control.unfreezeClock();
    const results = await Promise.all(jobs);
    const ran = results.filter((result) => result.code === 0);
    // The lock is check, write, check again (pkg/backend/diy/lock.go): in an exact tie both jobs
    // see each other's lock and both stop; never do both run.
    expect(ran.length).toBeLessThanOrEqual(1);
    for (const refused of results.filter((result) => result.code !== 0)) expect(refused.stderr).toContain(LOCKED);
    expect(await pg.locks(name)).toEqual([]);

    const retry = await merge();
    expect(retry.code).toBe(0);
    expect(await createCount("/v2/pods")).toBe(2);
    expect(await createCount("/v2/sandboxes")).toBe(1);
    expect(await ownedCounts()).toEqual(oneEach(name, ["web", "trainer-0", "scratch"]));
    await expectStateIsTheService();
  });

  it("pull requests previewed at once, and tried at once in review stacks, do not interfere; closing one destroys only its own", async () => {
    await e2e.stack.setAllConfig({ trainers: { value: "0" } });
    expect((await merge()).code).toBe(0); // main: web and scratch
    await e2e.control.clearRequests();

    // Two previews of one stack at once: previews take no lock, and change nothing.
    await e2e.stack.setAllConfig({ trainers: { value: "1" } });
    const previews = await Promise.all([runGitopsScript(e2e, "pull-request.sh", name), runGitopsScript(e2e, "pull-request.sh", name)]);
    // The change is one trainer: an H100 at the catalog's price.
    const trainer = (await listPrices(e2e.emulator)).gpu(GPU.h100);
    for (const preview of previews) {
      expect(preview.code).toBe(0);
      expect(preview.stdout).toContain(`### Compute cost of this change: +${dollars(trainer)} $/hr`);
    }
    expect(previews[0]!.stdout).toBe(previews[1]!.stdout);
    expect(await mutations(e2e)).toEqual([]);
    expect(await pg.locks(name)).toEqual([]);

    // Two pull requests' review stacks at once: each its own stack, lock and resources.
    const reviews = await Promise.all([1, 2].map((n) => runGitopsScript(e2e, "pull-request.sh", name, ["--review", String(n)])));
    for (const [i, review] of reviews.entries()) {
      expect(review.code).toBe(0);
      expect(review.stdout).toContain(`#### Review stack \`pr-${i + 1}\``);
    }
    const main = oneEach(name, ["web", "scratch"]);
    const pr = (n: number) => oneEach(`pr-${n}`, ["web", "trainer-0", "scratch"]);
    expect(await ownedCounts()).toEqual({ ...main, ...pr(1), ...pr(2) });
    expect((await pg.latest("pr-1")).resources?.filter((r) => r.id).length).toBe((await pg.latest("pr-2")).resources?.filter((r) => r.id).length);

    // A second push to pull request 1, on a fresh runner (no Pulumi.pr-1.yaml: review stacks'
    // settings are never committed), updates its review stack in place, with the stack's secrets
    // salt, part of every owner mark, taken back from the state rather than made anew.
    const settings = path.join(GITOPS, "Pulumi.pr-1.yaml");
    const salt = (file: string) => /^encryptionsalt: (.+)$/m.exec(readFileSync(file, "utf8"))?.[1];
    const saltBefore = salt(settings);
    expect(saltBefore).toBeDefined();
    rmSync(settings);
    await e2e.control.clearRequests();
    expect((await runGitopsScript(e2e, "pull-request.sh", name, ["--review", "1"])).code).toBe(0);
    expect(salt(settings)).toBe(saltBefore);
    expect((await mutations(e2e)).filter((m) => m.startsWith("POST /v2/pods") || m.startsWith("POST /v2/sandboxes"))).toEqual([]);

    const closed = await runGitopsScript(e2e, "pr-closed.sh", "1");
    expect(closed.code).toBe(0);
    expect(await ownedCounts()).toEqual({ ...main, ...pr(2) });
    expect((await runGitopsScript(e2e, "pr-closed.sh", "2")).code).toBe(0);
    expect(await ownedCounts()).toEqual(main);
    expect(readdirSync(GITOPS).filter((f) => /^Pulumi\.pr-\d+\.yaml$/.test(f))).toEqual([]);
    expect((await runGitopsScript(e2e, "pr-closed.sh", "2")).stdout).toContain("no review stack pr-2: nothing to destroy");
  });

  it("the database dies in the middle of a merge: the up fails; once it is back, cancel and up adopt what was created, with nothing created twice", async () => {
    await e2e.stack.setAllConfig({ trainers: { value: "1" } });
    // The clock stands still until every create is answered and its wait is on: the database
    // dies, and only then do the waits end, each with a state write to a dead database.
    await e2e.control.freezeClock();
    const failing = merge();
    await untilCreatesAnswered();
    await pg.stop("immediate");
    await e2e.control.unfreezeClock();

    const failed = await failing;
    expect(failed.code).not.toBe(0);
    expect(failed.stdout + failed.stderr).toContain("An IO error occurred while writing the new snapshot file");
    expect(failed.stdout + failed.stderr).toMatch(/connection refused/);
    expect(failed.stdout + failed.stderr).not.toContain(pg.password);

    await pg.start();
    // The run could not remove its lock from a dead database (`pulumi cancel` is the way out),
    // and its state holds the creates as pending, without their ids.
    expect(await pg.locks(name)).toHaveLength(1);
    expect((await pg.latest(name)).pending_operations?.map((op) => op.type)).toContain("creating");
    await e2e.cancel();
    const again = await merge();
    expect(again.code).toBe(0);
    // merge.sh clears the pending creates this up made again (examples/gitops/pending-creates.js).
    for (const [type, resource] of [["Pod", "web"], ["Pod", "trainer-0"], ["Sandbox", "scratch"]]) {
      expect(again.stderr).toContain(`settled the pending create of urn:pulumi:${name}::${PROJECT}::pulumi-nodejs:dynamic/compute:${type}::${resource}`);
    }
    expect(await createCount("/v2/pods")).toBe(2); // adopted, not created twice
    expect(await createCount("/v2/sandboxes")).toBe(1);
    expect(await ownedCounts()).toEqual(oneEach(name, ["web", "trainer-0", "scratch"]));
    await expectStateIsTheService();
    const state = await e2e.stateText();
    expect(state).not.toContain(e2e.emulator.apiKey); // secrets in the team's database only as ciphertext
    expect(state).not.toContain(pg.password);

    // Settled: the next merge changes nothing and has nothing pending to warn about.
    await e2e.control.clearRequests();
    const next = await merge();
    expect(next.code).toBe(0);
    expect(next.stdout + next.stderr).not.toContain("pending operations from previous deployment");
    expect(await mutations(e2e)).toEqual([]);
  });
});
