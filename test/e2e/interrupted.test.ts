import type { ChildProcess } from "node:child_process";
import { createE2EStack, type E2EStack } from "./harness";
import { GPU, sleep } from "../helpers/fixtures";
import { eventually } from "../helpers/eventually";
import { answersTo } from "../helpers/request-log";
import { resourceByToken } from "../../provider/resources";
import { fingerprintOf } from "../../sdk";
import { emulatorState, holdingsOf, REGISTRY_PASSWORD } from "./environment-stack";
import { newPublicKey } from "../helpers/ssh-keys";
import { processTree } from "../../scripts/lib/processes";

jest.setTimeout(15 * 60_000);

const A5000 = GPU.a5000;
const sandbox = { image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 } };

/** Every process of the runs a test started, taken while they were still a tree. */
const started = new Set<number>();

function killProcess(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Kills what a kill of the CLI alone orphaned, once the test is over. */
function killStarted(): void {
  for (const pid of started) killProcess(pid);
  started.clear();
}

/** Kills the CLI alone, or the whole tree it started; remembers the tree for clean-up. */
function kill(child: ChildProcess, what: "cli" | "tree"): void {
  const tree = processTree(child.pid!);
  tree.forEach((pid) => started.add(pid));
  if (what === "cli") killProcess(child.pid!);
  else tree.forEach(killProcess);
}

/**
 * An `up` that dies or loses the service in the middle of its creates must leave nothing
 * behind: the next `up` brings what the interrupted one created under the stack (no second
 * pod or sandbox), and `destroy` then leaves nothing. Every case counts what bills in the
 * emulator without being in the state, and asserts none.
 */
describe("interrupted up", () => {
  let e2e: E2EStack;

  beforeAll(async () => {
    e2e = await createE2EStack("interrupted");
  });
  afterEach(async () => {
    killStarted();
    await e2e.cleanSlate();
  });
  afterAll(() => e2e?.dispose());

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
    const known = new Set(Object.values(state).flat());
    const existing = new Set(Object.values(live).flat());
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
    // The kill came before the engine recorded them: what the next up finds, it must adopt.
    const atKill = await e2e.stateIds();
    expect([atKill.pod, atKill.sandbox]).toEqual([[], []]);

    await upAgainAfterKill();
    expect(await createdCount("/v2/pods")).toBe(2); // no second pod for either resource
    expect(await createdCount("/v2/sandboxes")).toBe(1);
    expect(await leaks()).toEqual({ leaked: [], lost: [] });
    const state = await e2e.stateIds();
    expect(state.pod).toHaveLength(2);
    expect(state.sandbox).toHaveLength(1);
  });

  it.each([
    ["create-before-delete", [] as string[]],
    ["delete-before-replace", ["a"]],
  ])("a replacement interrupted after its create (%s): exactly one pod after the next up", async (_mode, deleteBeforeReplace) => {
    await e2e.declare({ pods: { a: { image: "i", gpu: { id: A5000 } } }, deleteBeforeReplace });
    await e2e.stack.up();
    const [original] = (await e2e.stateIds()).pod;

    await e2e.declare({ pods: { a: { image: "i", gpu: { id: A5000, count: 2 } } }, deleteBeforeReplace }); // count replaces
    await e2e.control.setTimings({ podProvisioningMs: 8000, podStartingMs: 2000 });
    const child = e2e.spawnUp();
    await untilCreated(2, 0);
    kill(child, "tree");
    await sleep(500);

    await upAgainAfterKill();
    expect(await createdCount("/v2/pods")).toBe(2); // the original and one replacement
    const state = await e2e.stateIds();
    expect(state.pod).toHaveLength(1);
    expect(state.pod).not.toContain(original);
    expect(await leaks()).toEqual({ leaked: [], lost: [] });
  });

  it("a replacement leaves the pod it replaces running until the new one is ready; --replace never loses the pod", async () => {
    await e2e.declare({ pods: { a: { image: "i", gpu: { id: A5000 } } } });
    await e2e.stack.up();
    const [original] = (await e2e.stateIds()).pod;

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
    expect((await e2e.stateIds()).pod).toHaveLength(1);
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

/**
 * The same for a cluster: its create answers at once and the wait for every node is long, so
 * a kill after the answer, or the service down during the wait, must end with exactly one
 * cluster, in the state, after the next `up` (the name-borne owner mark finds it again).
 */
describe("interrupted up of a cluster", () => {
  let e2e: E2EStack;
  const clusters = { c: { type: "SLURM", compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 2 }, image: "slurm:24.05" } };

  beforeAll(async () => {
    e2e = await createE2EStack("interrupted-cluster");
  });
  afterEach(async () => {
    killStarted();
    await e2e.cancel().catch(() => undefined);
    await e2e.cleanSlate();
  });
  afterAll(() => e2e?.dispose());

  const clusterCreates = async () => (await e2e.control.requests()).filter((r) => r.method === "POST" && r.path === "/v2/clusters" && r.status === 201).length;
  const untilAnswered = () => eventually("the cluster create answered by the service", async () => (await clusterCreates()) >= 1, { timeoutMs: 60_000 });

  /** Exactly one cluster exists beside the fixture's, and it is the one the state holds. */
  async function expectOneClusterInState(): Promise<void> {
    const live = (await e2e.liveIds()).cluster;
    expect(live).toHaveLength(1);
    expect((await e2e.stateIds()).cluster).toEqual(live);
  }

  it("kill -9 of the whole process tree after the create was answered: the next up adopts it", async () => {
    await e2e.declare({ clusters });
    await e2e.control.setTimings({ podProvisioningMs: 8000, podStartingMs: 2000 });
    const child = e2e.spawnUp();
    await untilAnswered();
    kill(child, "tree");
    await sleep(500);
    expect((await e2e.stateIds()).cluster).toEqual([]); // the kill came before the engine recorded it

    await e2e.cancel().catch(() => undefined);
    const up = await e2e.stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect(await clusterCreates()).toBe(1); // adopted, not created again
    await expectOneClusterInState();
  });

  it("the service down for longer than the retries during the wait: recorded, then resumed", async () => {
    await e2e.declare({ clusters });
    await e2e.control.setTimings({ podProvisioningMs: 6000, podStartingMs: 2000 });
    const up = e2e.stack.up().then(
      () => undefined,
      (error: Error) => error,
    );
    await untilAnswered();
    await eventually(
      "the provider polling the cluster after its create",
      async () => {
        const requests = await e2e.control.requests();
        const created = requests.findIndex((r) => r.method === "POST" && r.path === "/v2/clusters");
        return requests.slice(created + 1).some((r) => r.method === "GET" && r.path.startsWith("/v2/clusters"));
      },
      { timeoutMs: 60_000 },
    );
    await e2e.restartEmulator(() => up);
    expect(await up).toBeInstanceOf(Error);
    await expectOneClusterInState(); // recorded, not leaked

    await e2e.control.clearRequests();
    const again = await e2e.stack.up();
    expect(again.summary.result).toBe("succeeded");
    expect(await clusterCreates()).toBe(0); // resumed, not created again
    expect((again.outputs.clusterOutputs!.value as Record<string, { status: string }>).c!.status).toBe("RUNNING");
    await expectOneClusterInState();
  });
});

/**
 * The same for the environment resources (the TypeScript program of environment-ts.test.ts: a
 * network volume, a registry credential, an SSH key, a template naming the credential, an
 * endpoint naming the volume and the credential, and a pod using them all). None of them waits
 * for anything once the service has answered its create, so the window a kill can hit is the
 * create itself: the emulator executes and saves each create, then holds its answer (a fault
 * with `after` and `latencyMs`), and the run is killed once the service has them all. The next
 * `up` must adopt each one: exactly one of each kind exists, the state holds it, and nothing of
 * the stack is left outside it. The template and the endpoint are created only once the
 * credential and the volume they name exist, so they are interrupted in a run of their own.
 */
describe("interrupted up of the environment resources", () => {
  let e2e: E2EStack;
  let before: ReturnType<typeof holdingsOf>;

  type Kind = "volume" | "registry credential" | "ssh key" | "template" | "endpoint";
  type Holding = "volumes" | "registries" | "sshKeys" | "templates" | "endpoints";
  /** Each kind's create request, and where the emulator's state lists what it holds. */
  const CREATE: Record<Kind, { method: string; path: string; holding: Holding }> = {
    volume: { method: "POST", path: "/v2/network-volumes", holding: "volumes" },
    "registry credential": { method: "POST", path: "/v2/registries", holding: "registries" },
    // The account's key set is written whole: adding the key is this PUT.
    "ssh key": { method: "PUT", path: "/v2/account/ssh-keys", holding: "sshKeys" },
    template: { method: "POST", path: "/v2/templates", holding: "templates" },
    endpoint: { method: "POST", path: "/v2/serverless", holding: "endpoints" },
  };
  const KINDS = Object.keys(CREATE) as Kind[];
  /** Created side by side first; the template and the endpoint wait for them. */
  const FIRST: Kind[] = ["volume", "registry credential", "ssh key"];
  const SECOND: Kind[] = ["template", "endpoint"];

  beforeAll(async () => {
    e2e = await createE2EStack("interrupted-environment", { program: "environment-ts" });
    await e2e.stack.setAllConfig({ registryPassword: { value: REGISTRY_PASSWORD, secret: true }, sshPublicKey: { value: newPublicKey("dev@interrupted") } });
    before = holdingsOf(await emulatorState(e2e));
  });
  afterEach(async () => {
    killStarted();
    await e2e.control.clearFaults();
    await e2e.cancel().catch(() => undefined);
    await e2e.stack.destroy();
    expect(holdingsOf(await emulatorState(e2e))).toEqual(before); // destroy left nothing behind
    await e2e.control.reset();
    await e2e.control.clearRequests();
  });
  afterAll(() => e2e?.dispose());

  /** What the account holds now that it did not hold before the stack (ids; SSH key lines). */
  async function added(): Promise<Record<Holding | "pods", string[]>> {
    const now = holdingsOf(await emulatorState(e2e));
    const out = {} as Record<Holding | "pods", string[]>;
    for (const key of ["volumes", "registries", "sshKeys", "templates", "endpoints", "pods"] as const) out[key] = now[key].filter((item) => !before[key].includes(item));
    return out;
  }

  /** The ids the stack's state holds, by kind (an SSH key's id is its fingerprint). */
  async function stateIdsByKind(): Promise<Record<string, string[]>> {
    const resources = ((await e2e.stack.exportStack()).deployment.resources ?? []) as Array<{ type: string; id?: string }>;
    const out: Record<string, string[]> = {};
    for (const r of resources) {
      const kind = resourceByToken(r.type)?.kind;
      if (kind && r.id) (out[kind] ??= []).push(r.id);
    }
    return out;
  }

  /**
   * The service executes and saves each create of `kinds`, and holds its answer for `HOLD_MS`:
   * ample time to kill the run (which the test checks), and short enough that no held answer
   * outlives the suite.
   */
  const HOLD_MS = 15_000;
  async function holdCreates(kinds: Kind[]): Promise<void> {
    for (const kind of kinds) await e2e.control.addFault({ method: CREATE[kind].method, path: CREATE[kind].path, after: true, latencyMs: HOLD_MS, times: 1 });
  }

  async function untilLanded(kinds: Kind[]): Promise<void> {
    await eventually(
      `the service holding the creates of ${kinds.join(", ")}`,
      async () => {
        const now = await added();
        return kinds.every((kind) => now[CREATE[kind].holding].length > 0);
      },
      { timeoutMs: 60_000 },
    );
  }

  /**
   * How many create requests of `kind` arrived since `since` (the emulator's clock; a held
   * request is logged once its answer goes, with the time it arrived), or since the log was cleared.
   */
  async function createsSent(kind: Kind, since = 0): Promise<number> {
    return (await e2e.control.requests()).filter((r) => r.method === CREATE[kind].method && r.path === CREATE[kind].path && Date.parse(r.time) >= since).length;
  }

  /**
   * Exactly one resource of each kind (and one pod) exists beside what the account held before
   * the stack, the state holds each of them, and nothing of the stack is outside it.
   */
  async function expectOneOfEachInState(): Promise<void> {
    const now = await added();
    const state = await stateIdsByKind();
    for (const kind of KINDS) {
      const live = now[CREATE[kind].holding];
      expect({ kind, live: live.length }).toEqual({ kind, live: 1 });
      const id = kind === "ssh key" ? fingerprintOf(live[0]!) : live[0]!;
      expect({ kind, state: state[kind] }).toEqual({ kind, state: [id] });
    }
    expect(now.pods).toHaveLength(1);
    expect(state.pod).toEqual(now.pods);
  }

  /** The next `up` after a kill; resolves with the emulator's time it started at. */
  async function upAgainAfterKill(): Promise<number> {
    await e2e.cancel().catch(() => undefined); // the killed run's lock on the file backend
    await e2e.control.clearFaults();
    const since = Date.parse((await e2e.control.clock()).now);
    const up = await e2e.stack.up();
    expect(up.summary.result).toBe("succeeded");
    return since;
  }

  // Each kind is adopted after one kill, and each way of killing is used once: the adoption (by
  // owner mark) is the same whichever processes died, and the pods' and sandboxes' cases above
  // run both ways on one set of kinds.
  it.each([
    ["the whole process tree", "the volume, the registry credential and the SSH key", FIRST, "tree" as const],
    ["the CLI alone", "the template and the endpoint", SECOND, "cli" as const],
  ])("kill -9 of %s once the service created %s: the next up adopts each, no second one", async (_who, _what, kinds, what) => {
    await holdCreates(kinds);
    const child = e2e.spawnUp();
    await untilLanded(kinds);
    kill(child, what);
    await sleep(500);
    // The kill came between the service's create and the engine's record of it.
    const recorded = await stateIdsByKind();
    for (const kind of kinds) expect({ kind, recorded: recorded[kind] ?? [] }).toEqual({ kind, recorded: [] });

    const since = await upAgainAfterKill();
    for (const kind of kinds) expect({ kind, created: await createsSent(kind, since) }).toEqual({ kind, created: 0 }); // adopted, not created again
    await expectOneOfEachInState();
  });

  it("the service down for a moment while it holds the creates of the volume, the credential and the key: one of each after the up", async () => {
    await holdCreates(FIRST);
    const up = e2e.stack.up();
    await untilLanded(FIRST);
    // The held answers are lost with the connections; the faults are not kept across a restart.
    await e2e.restartEmulator(1000);
    const result = await up;
    expect(result.summary.result).toBe("succeeded");
    await expectOneOfEachInState();
  });

  it("the service answering 5xx or dropping the connection after each create landed: one of each, all in the state, after one up", async () => {
    await e2e.control.addFault({ method: "POST", path: "/v2/network-volumes", status: 502, after: true, times: 1 });
    await e2e.control.addFault({ method: "POST", path: "/v2/registries", drop: true, after: true, times: 1 });
    await e2e.control.addFault({ method: "PUT", path: "/v2/account/ssh-keys", status: 503, after: true, times: 1 });
    await e2e.control.addFault({ method: "POST", path: "/v2/templates", drop: true, after: true, times: 1 });
    await e2e.control.addFault({ method: "POST", path: "/v2/serverless", status: 502, after: true, times: 1 });
    const up = await e2e.stack.up();
    expect(up.summary.result).toBe("succeeded");
    // Each fault fired on its create's first answer (null: the connection dropped)...
    const requests = await e2e.control.requests();
    const firstAnswer = (kind: Kind) => answersTo(requests, CREATE[kind].method, CREATE[kind].path)[0];
    expect(KINDS.map((kind) => [kind, firstAnswer(kind)])).toEqual([
      ["volume", 502],
      ["registry credential", null],
      ["ssh key", 503],
      ["template", null],
      ["endpoint", 502],
    ]);
    // ... and each lost answer was recovered, not the create sent again (the key set's PUT is idempotent).
    for (const kind of KINDS.filter((k) => CREATE[k].method === "POST")) expect({ kind, created: await createsSent(kind) }).toEqual({ kind, created: 1 });
    await expectOneOfEachInState();
  });
});
