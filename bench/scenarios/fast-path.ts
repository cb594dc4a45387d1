/**
 * Scenario 12: is the engine's fast path, `PULUMI_SKIP_CHECKPOINTS=true` (no checkpoint written
 * until the end of the run: scenario 9's `up` of 1000 spends much of its time writing them),
 * safe with this provider's resources when the run is killed? The engine then keeps no record
 * of what it created before the kill, so the next `up` must find each one again (the owner
 * mark of sdk/ownership.ts) rather than create a second.
 *
 * For each face, the fleet program's dynamic classes and the native plugin (`bench:native`):
 * N resources (N/2 CPU pods, N/2 sandboxes; N = 1000, or COMPUTE_BENCH_FASTPATH_SIZE to try it
 * small), one emulator process with the realistic timing profile for the whole scenario.
 * `pulumi up --parallel N` runs as a child process of the CLI with the variable set; once the
 * service has answered about half of the N creates, the CLI and every process below it are
 * killed with SIGKILL (the engine starts its language host and plugins in process groups of
 * their own: the tree is walked by parent links, scripts/lib/processes.ts). Then `pulumi
 * cancel` (the lock the killed run leaves on the file backend), and a second `up`, through the
 * Automation API, the variable still set.
 *
 * Recorded, per face: when the kill came, the creates answered by then, what the state held
 * then; after the second `up`: the live objects at the service (pods and sandboxes not in an
 * ended state, beside what the emulator's fixture holds), the ids the state holds, the creates
 * the service answered over both runs, and whether the state's ids are the service's. Goals:
 * N, N, N (nothing created twice), and yes. Then `destroy`, which must leave nothing live.
 */
import type { ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { EmulatorControl } from "../../emulator";
import { ComputeClient } from "../../sdk";
import { processTree } from "../../scripts/lib/processes";
import { createStack, type BenchStack, type Deployment } from "../lib/stack";
import { FLEET_RESOURCES, fleetTypes, log, raiseCpuCapacity, round, sleep, startEmulatorProcess, type Row, type ScenarioResult } from "../lib/common";

const DEFAULT_SIZE = 1000;
const FACES = ["dynamic", "native"] as const;
type Face = (typeof FACES)[number];
const SKIP_CHECKPOINTS = "PULUMI_SKIP_CHECKPOINTS";
const POLL_MS = 250;
const KILL_DEADLINE_MS = 5 * 60_000;
const EXIT_DEADLINE_MS = 30_000;
const CREATES = ["/v2/pods", "/v2/sandboxes"];

/** N, the resources of the run: COMPUTE_BENCH_FASTPATH_SIZE (an even count, 2 or more) or 1000. */
function size(): number {
  const given = process.env.COMPUTE_BENCH_FASTPATH_SIZE;
  if (given === undefined || given === "") return DEFAULT_SIZE;
  const n = Number(given);
  if (!(Number.isInteger(n) && n >= 2 && n % 2 === 0)) throw new Error(`COMPUTE_BENCH_FASTPATH_SIZE must be an even integer ≥ 2 (half pods, half sandboxes), not "${given}"`);
  return n;
}

interface FaceRun {
  face: Face;
  resources: number;
  /** The killed run. */
  kill: {
    /** Seconds from the start of the `up` to the kill. */
    seconds: number;
    /** Creates the service had answered with a 2xx when the kill was decided. */
    createsAnswered: number;
    /** The same, once the killed processes were gone (an answer on its way at the kill counts). */
    createsAnsweredBeforeCancel: number;
    /** Pods and sandboxes the stack's state held after the kill. */
    stateResources: number;
    /** How the CLI ended (the signal that killed it, or its exit code). */
    cliEnded: string;
    /** Whether the killed run left a lock in the file backend. */
    lockLeft: boolean;
    /** What `pulumi cancel` did: "cleared", or the first line of its error. */
    cancel: string;
  };
  secondUpSeconds: number;
  /** Pods and sandboxes live at the service (not ended, the fixture's left out) after the second `up`. */
  liveObjects: number;
  /** Pods and sandboxes the state holds (with an id) after the second `up`. */
  stateResources: number;
  /** Creates the service answered with a 2xx over both runs (N when nothing was created twice). */
  createsInAll: number;
  /** Whether the state's ids are exactly the service's live ids. */
  stateEqualsService: boolean;
  /** Live ids the state does not hold (leaked), and state ids the service does not have (lost), at most 10 each. */
  leaked: string[];
  lost: string[];
  /** Pods and sandboxes live at the service after `destroy`. */
  liveAfterDestroy: number;
}

/** Pods and sandboxes the service's log shows created (a 2xx to `POST /v2/pods` or `POST /v2/sandboxes`). */
async function createsAnswered(control: EmulatorControl): Promise<number> {
  return (await control.requests()).filter((r) => r.method === "POST" && CREATES.includes(r.path) && r.status !== null && r.status >= 200 && r.status < 300).length;
}

/**
 * The ids of the pods and sandboxes the service holds in a state that is not ended (each kind's
 * list read through its definition's SDK family; one it could not read counts as live), the
 * ids in `fixture` (what the emulator held before the stack) left out.
 */
async function liveIds(client: ComputeClient, fixture: Set<string> = new Set()): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const definition of Object.values(FLEET_RESOURCES)) {
    const { items, setAside } = await definition.family(client).page();
    for (const live of items as Array<{ id: string }>) if (!definition.states.ended.has(definition.states.of(live))) ids.add(live.id);
    for (const entry of setAside) ids.add(entry.id ?? `unreadable #${entry.index}`);
  }
  return new Set([...ids].filter((id) => !fixture.has(id)));
}

/** The fleet's resources in a deployment (the face's types), with their ids. */
function stateIds(deployment: Deployment, face: Face): string[] {
  const types = fleetTypes(face);
  return (deployment.resources ?? []).filter((r) => types.includes(r.type) && r.id).map((r) => r.id!);
}

/** Whether the file backend holds a lock (the folder `.pulumi/locks` has a file anywhere under it). */
function hasLock(stateDir: string): boolean {
  const walk = (dir: string): boolean => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    return entries.some((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name)) : true));
  };
  return walk(path.join(stateDir, ".pulumi", "locks"));
}

function killProcess(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Resolves once `child` has exited, or rejects after `ms`. */
function exited(child: ChildProcess, ms: number): Promise<string> {
  const ended = () => (child.signalCode ? child.signalCode : `exit ${child.exitCode}`);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(ended());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the CLI (pid ${child.pid}) did not exit within ${ms / 1000} s of its kill`)), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(ended());
    });
  });
}

export async function run(): Promise<ScenarioResult> {
  const n = size();
  const emulator = await startEmulatorProcess(["--profile", "realistic", "--quiet"]);
  const control = new EmulatorControl(emulator.url, emulator.adminToken);
  const client = new ComputeClient({ baseUrl: emulator.url, apiKey: emulator.apiKey, env: {} });
  const stacks: BenchStack[] = [];
  let child: ChildProcess | undefined;
  const runs: FaceRun[] = [];
  try {
    for (const face of FACES) {
      await control.reset();
      await raiseCpuCapacity(control);
      await control.clearRequests();
      const fixture = await liveIds(client);
      const stack = await createStack({
        name: `fastpath-${face}`,
        program: "fleet",
        emulator,
        config: { "bench:pods": n / 2, "bench:sandboxes": n / 2, "bench:native": String(face === "native") },
      });
      stacks.push(stack);
      stack.setEnv(SKIP_CHECKPOINTS, "true");

      // The run to kill: the CLI as a child of this process, its output's tail kept for an error.
      log(`${face}: up of ${n} with ${SKIP_CHECKPOINTS}=true, to be killed at ${Math.ceil(n / 2)} creates answered`);
      const started = performance.now();
      const cli = stack.spawnCli(["up", "--yes", "--skip-preview", "--non-interactive", "--parallel", String(n)]);
      child = cli;
      let output = "";
      const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
      cli.stdout!.on("data", keep);
      cli.stderr!.on("data", keep);

      let answered = 0;
      const deadline = Date.now() + KILL_DEADLINE_MS;
      for (;;) {
        answered = await createsAnswered(control);
        if (answered >= Math.ceil(n / 2)) break;
        if (cli.exitCode !== null || cli.signalCode !== null) {
          throw new Error(`the up ended (${cli.signalCode ?? `exit ${cli.exitCode}`}) before ${Math.ceil(n / 2)} creates were answered (${answered})\n--- its output (tail) ---\n${output}`);
        }
        if (Date.now() > deadline) throw new Error(`${answered} of ${n} creates answered after ${KILL_DEADLINE_MS / 1000} s, not half\n--- its output (tail) ---\n${output}`);
        await sleep(POLL_MS);
      }
      const tree = processTree(cli.pid!);
      for (const pid of tree) killProcess(pid);
      const killSeconds = (performance.now() - started) / 1000;
      const cliEnded = await exited(cli, EXIT_DEADLINE_MS);
      child = undefined;
      await sleep(1000); // an answer on its way at the kill reaches the log
      const answeredAfter = await createsAnswered(control);
      const killedState = stateIds(await stack.exportDeployment(), face).length;
      const lockLeft = hasLock(stack.stateDir);
      log(`${face}: killed ${tree.length} processes at ${round(killSeconds, 1)} s (${cliEnded}): ${answered} creates answered (${answeredAfter} once gone), ${killedState} in the state, lock ${lockLeft ? "left" : "none"}`);

      let cancel = "cleared";
      await stack.cancel().catch((error: Error) => {
        cancel = String(error.message).split("\n").find((line) => line.trim() !== "" && !line.startsWith("Command failed")) ?? String(error.message).split("\n")[0]!;
      });
      log(`${face}: pulumi cancel: ${cancel}`);

      // The second up, the fast path still on; the creates it makes are counted from here.
      await control.clearRequests();
      const up = await stack.up({ parallel: n });
      const createsInAll = answeredAfter + (await createsAnswered(control));
      const live = await liveIds(client, fixture);
      const state = stateIds(await stack.exportDeployment(), face);
      const stateSet = new Set(state);
      const leaked = [...live].filter((id) => !stateSet.has(id));
      const lost = state.filter((id) => !live.has(id));
      const stateEqualsService = leaked.length === 0 && lost.length === 0 && stateSet.size === state.length;
      log(
        `${face}: up again ${round(up.seconds, 1)} s: ${live.size} live, ${state.length} in the state, ${createsInAll} creates in all, state = service: ${stateEqualsService}` +
          (leaked.length || lost.length ? ` (leaked ${leaked.length}, lost ${lost.length})` : ""),
      );

      await stack.destroy({ parallel: n });
      const left = (await liveIds(client, fixture)).size;
      log(`${face}: after destroy, ${left} live`);
      stack.setEnv(SKIP_CHECKPOINTS, undefined);

      runs.push({
        face,
        resources: n,
        kill: { seconds: round(killSeconds, 1), createsAnswered: answered, createsAnsweredBeforeCancel: answeredAfter, stateResources: killedState, cliEnded, lockLeft, cancel },
        secondUpSeconds: round(up.seconds, 1),
        liveObjects: live.size,
        stateResources: state.length,
        createsInAll,
        stateEqualsService,
        leaked: leaked.slice(0, 10),
        lost: lost.slice(0, 10),
        liveAfterDestroy: left,
      });
    }
  } finally {
    // Whatever is left of a run killed or abandoned half-way.
    if (child && child.exitCode === null && child.signalCode === null) for (const pid of processTree(child.pid!)) killProcess(pid);
    for (const stack of stacks) {
      stack.setEnv(SKIP_CHECKPOINTS, undefined);
      await stack.dispose().catch((error: Error) => log(`cleanup: ${error.message}`));
    }
    await client.close().catch(() => undefined);
    await emulator.close();
  }

  const s12 = "12 Fast path";
  const rows: Row[] = [];
  for (const r of runs) {
    rows.push({
      scenario: s12,
      figure:
        `${r.face}: kill -9 of the engine and its processes at ${r.kill.seconds} s into a ${r.resources}-resource up with ${SKIP_CHECKPOINTS}=true ` +
        `(${r.kill.createsAnswered} creates answered, ${r.kill.stateResources} resources in the state), then up again (${r.secondUpSeconds} s): ` +
        `live objects at the service, resources in the state, creates answered in all, state = service`,
      value: `${r.liveObjects}, ${r.stateResources}, ${r.createsInAll}, ${r.stateEqualsService ? "yes" : "no"}`,
      goal: `${r.resources}, ${r.resources}, ${r.resources}, yes`,
      met: r.liveObjects === r.resources && r.stateResources === r.resources && r.createsInAll === r.resources && r.stateEqualsService,
    });
    rows.push({ scenario: s12, figure: `${r.face}: after destroy: live objects left`, value: String(r.liveAfterDestroy), goal: "0", met: r.liveAfterDestroy === 0 });
  }
  return { results: { fastPath: { resources: n, timingProfile: "realistic", faces: Object.fromEntries(runs.map((r) => [r.face, r])) } }, rows };
}
