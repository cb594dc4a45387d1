import { execFileSync, type ChildProcess } from "node:child_process";
import { createE2EStack, type E2EStack } from "./harness";
import { GPU, sleep } from "../helpers/fixtures";
import { eventually } from "../helpers/eventually";

jest.setTimeout(15 * 60_000);

const A5000 = GPU.a5000;
const sandbox = { image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 } };

/**
 * An `up` that dies or loses the service in the middle of its creates must leave nothing
 * behind: the next `up` brings what the interrupted one created under the stack (no second
 * pod or sandbox), and `destroy` then leaves nothing. Every case counts what bills in the
 * emulator without being in the state, and asserts none.
 */
describe("interrupted up", () => {
  let e2e: E2EStack;
  /** Every process of the runs a test started, taken while they were still a tree. */
  const started = new Set<number>();

  beforeAll(async () => {
    e2e = await createE2EStack("interrupted");
  });
  afterEach(async () => {
    for (const pid of started) killProcess(pid); // what a kill of the CLI alone orphaned
    started.clear();
    await e2e.cleanSlate();
  });
  afterAll(() => e2e?.dispose());

  function killProcess(pid: number): void {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }

  /**
   * The CLI and every process below it. The engine starts its language host and plugins in
   * process groups of their own, so a group kill would miss them: walk the parent links.
   */
  function treeOf(root: number): number[] {
    const parents = execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
    const tree = [root];
    for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
    return tree;
  }

  /** Kills the CLI alone, or the whole tree it started; remembers the tree for clean-up. */
  function kill(child: ChildProcess, what: "cli" | "tree"): void {
    const tree = treeOf(child.pid!);
    tree.forEach((pid) => started.add(pid));
    if (what === "cli") killProcess(child.pid!);
    else tree.forEach(killProcess);
  }

  async function createdCount(path: "/v2/pods" | "/v2/sandboxes"): Promise<number> {
    return (await e2e.control.requests()).filter((r) => r.method === "POST" && r.path === path && r.status === 201).length;
  }

  /** Waits until the service has answered `pods` pod creates and `sandboxes` sandbox creates. */
  async function untilCreated(pods: number, sandboxes: number): Promise<void> {
    await eventually(`${pods} pod and ${sandboxes} sandbox creates answered by the service`, async () => (await createdCount("/v2/pods")) >= pods && (await createdCount("/v2/sandboxes")) >= sandboxes, {
      timeoutMs: 60_000,
    });
  }

  /**
   * Waits until the provider polled both pods and sandboxes after their creates: it then has
   * the create answers (a 201 in the service's log may still be on its way when the service
   * stops, and an answer that never arrives is the kill case, not the outage one).
   */
  async function untilPolled(): Promise<void> {
    await eventually(
      "the provider polling pods and sandboxes after its creates",
      async () => {
        const requests = await e2e.control.requests();
        const lastPost = requests.map((r) => r.method).lastIndexOf("POST");
        const after = requests.slice(lastPost + 1).filter((r) => r.method === "GET");
        return after.some((r) => r.path.startsWith("/v2/pods")) && after.some((r) => r.path.startsWith("/v2/sandboxes"));
      },
      { timeoutMs: 60_000 },
    );
  }

  /** What bills without the state knowing it, and what the state holds that does not exist. */
  async function leaks(): Promise<{ leaked: string[]; lost: string[] }> {
    const state = await e2e.stateIds();
    const live = await e2e.liveIds();
    const known = new Set([...state.pods, ...state.sandboxes]);
    const existing = new Set([...live.pods, ...live.sandboxes]);
    return { leaked: [...existing].filter((id) => !known.has(id)), lost: [...known].filter((id) => !existing.has(id)) };
  }

  async function upAgainAfterKill(): Promise<void> {
    // A killed run leaves the file backend locked; `pulumi cancel` is the engine's way out.
    await e2e.cancel().catch(() => undefined);
    const up = await e2e.stack.up();
    expect(up.summary.result).toBe("succeeded");
  }

  const declared = {
    pods: { a: { image: "i", gpu: { id: A5000 } }, b: { image: "i", cpu: { id: "cpu3c", vcpuCount: 2 } } },
    sandboxes: { s: sandbox },
  };

  it.each([
    ["the CLI alone", "cli" as const],
    ["the whole process tree", "tree" as const],
  ])("kill -9 of %s after the creates were answered: the next up adopts them", async (_what, what) => {
    await e2e.declare(declared);
    await e2e.control.setTimings({ podProvisioningMs: 8000, podStartingMs: 2000, sandboxCreatingMs: 8000 });
    const child = e2e.spawnUp();
    await untilCreated(2, 1);
    kill(child, what);
    await sleep(500);

    await upAgainAfterKill();
    expect(await createdCount("/v2/pods")).toBe(2); // no second pod for either resource
    expect(await createdCount("/v2/sandboxes")).toBe(1);
    expect(await leaks()).toEqual({ leaked: [], lost: [] });
    const state = await e2e.stateIds();
    expect(state.pods).toHaveLength(2);
    expect(state.sandboxes).toHaveLength(1);
  });

  it.each([
    ["create-before-delete", [] as string[]],
    ["delete-before-replace", ["a"]],
  ])("a replacement interrupted after its create (%s): exactly one pod after the next up", async (_mode, deleteBeforeReplace) => {
    await e2e.declare({ pods: { a: { image: "i", gpu: { id: A5000 } } }, deleteBeforeReplace });
    await e2e.stack.up();
    const [original] = (await e2e.stateIds()).pods;

    await e2e.declare({ pods: { a: { image: "i", gpu: { id: A5000, count: 2 } } }, deleteBeforeReplace }); // count replaces
    await e2e.control.setTimings({ podProvisioningMs: 8000, podStartingMs: 2000 });
    const child = e2e.spawnUp();
    await untilCreated(2, 0);
    kill(child, "tree");
    await sleep(500);

    await upAgainAfterKill();
    expect(await createdCount("/v2/pods")).toBe(2); // the original and one replacement
    const state = await e2e.stateIds();
    expect(state.pods).toHaveLength(1);
    expect(state.pods).not.toContain(original);
    expect(await leaks()).toEqual({ leaked: [], lost: [] });
  });

  it("a replacement leaves the pod it replaces running until the new one is ready; --replace never loses the pod", async () => {
    await e2e.declare({ pods: { a: { image: "i", gpu: { id: A5000 } } } });
    await e2e.stack.up();
    const [original] = (await e2e.stateIds()).pods;

    await e2e.control.clearRequests();
    await e2e.declare({ pods: { a: { image: "i", gpu: { id: A5000, count: 2 } } } });
    await e2e.stack.up();
    const mutations = (await e2e.control.requests()).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
    const created = mutations.indexOf("POST /v2/pods");
    const deleted = mutations.findIndex((m) => m.startsWith("DELETE") && m.endsWith(original!));
    expect(created).toBeGreaterThanOrEqual(0);
    expect(deleted).toBeGreaterThan(created); // only the engine's delete, after the create
    expect(mutations.filter((m) => m.endsWith(original!))).toHaveLength(1);
    expect(await leaks()).toEqual({ leaked: [], lost: [] });

    // A targeted replace runs no diff, so the provider cannot tell which pod it replaces: it
    // must end with one live pod the state knows, never with the state pointing at a deleted one.
    const urn = `urn:pulumi:interrupted::compute-e2e::pulumi-nodejs:dynamic/compute:Pod::a`;
    const replaced = await e2e.stack.up({ replace: [urn] });
    expect(replaced.summary.result).toBe("succeeded");
    expect(await leaks()).toEqual({ leaked: [], lost: [] });
    expect((await e2e.stateIds()).pods).toHaveLength(1);
    expect((replaced.outputs.podOutputs.value as Record<string, { status: string }>).a.status).toBe("RUNNING");
  });

  it("the service down for longer than the retries during the pods' and the sandbox's waits: recorded, then resumed", async () => {
    await e2e.declare(declared);
    await e2e.control.setTimings({ podProvisioningMs: 6000, podStartingMs: 2000, sandboxCreatingMs: 6000 });
    const up = e2e.stack.up().then(
      () => undefined,
      (error: Error) => error,
    );
    await untilCreated(2, 1);
    await untilPolled();
    // Longer than the SDK's retries of a refused connection: down until every wait has failed
    // and the up has ended (at most two minutes), then back.
    await e2e.restartEmulator(() => up);
    const failed = await up;
    expect(failed).toBeInstanceOf(Error);
    expect(await leaks()).toEqual({ leaked: [], lost: [] }); // every resource recorded

    await e2e.control.clearRequests();
    const again = await e2e.stack.up();
    expect(again.summary.result).toBe("succeeded");
    expect(await createdCount("/v2/pods")).toBe(0); // resumed, not created again
    expect(await createdCount("/v2/sandboxes")).toBe(0);
    const states = again.outputs.sandboxOutputs.value as Record<string, { state: string }>;
    expect(states.s.state).toBe("RUNNING");
    expect(await leaks()).toEqual({ leaked: [], lost: [] });
  });
});
