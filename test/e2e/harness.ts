/**
 * Drives the real Pulumi engine (CLI built by scripts/install-pulumi-engine.sh) through the
 * Automation API over a directory program, each stack against its own emulator and its own
 * state directory, as a user's `pulumi up` would run: TypeScript programs (dynamic resources)
 * and YAML programs (the native plugin, installed into the run's Pulumi home as
 * scripts/setup.sh installs it for a user). The engine's side (its environment, the Pulumi
 * home installed once per run, stack creation) is scripts/lib/engine.ts, shared with the
 * benchmarks.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import type { LocalWorkspace, Stack, UpdateSummary } from "@pulumi/pulumi/automation";
import { startEmulator } from "../../emulator";
import { sleep } from "../helpers/fixtures";
import { EmulatorControl } from "../../emulator/control-client";
import { createEngineStack, engineRoot, fileBackend, REPO_ROOT, type StateBackend } from "../../scripts/lib/engine";
import { RESOURCES, resourceByToken } from "../../provider/resources";
import { added, clientOf, clusterMemberIds, countOf, listedIds, noIds, type IdsByKind } from "../helpers/live-objects";
import type { ComputeClient } from "../../sdk";
import { checkpointCrypter, isSecretValue, plainValue, StackSettings, updateSummary } from "./engine-files";

export { engineRoot, REPO_ROOT, noIds };

type RunningEmulator = Awaited<ReturnType<typeof startEmulator>>;

/** Every end-to-end stack's passphrase. */
const PASSPHRASE = "e2e-passphrase";

/** `program`: a folder under test/e2e/programs, or an absolute path (the examples). */
function programDir(program = "stack"): string {
  return path.isAbsolute(program) ? program : path.join(__dirname, "programs", program);
}

/** The virtualenv scripts/setup-python.sh makes: pulumi and the generated pulumi_compute. */
export const PYTHON_VENV = path.join(REPO_ROOT, ".venv");

/**
 * What a Python program needs first on PATH: the virtualenv's `python` (without a `virtualenv`
 * runtime option, the engine's Python host runs the first one on PATH, as a user's activated
 * virtualenv provides). None for others, nor for a project that names its virtualenv, which the
 * host's launcher runs it in (test/e2e/python-layout.test.ts).
 */
function pythonPath(dir: string): string[] {
  const project = readFileSync(path.join(dir, "Pulumi.yaml"), "utf8");
  if (!/^runtime:\s*(\n\s+name:\s*)?python\b/m.test(project) || /^\s+virtualenv:/m.test(project)) return [];
  if (!existsSync(path.join(PYTHON_VENV, "bin", "python"))) {
    throw new Error(`${PYTHON_VENV} is missing: run \`bash scripts/setup-python.sh\` (npm test does) before the Python end-to-end suites`);
  }
  return [path.join(PYTHON_VENV, "bin")];
}

/**
 * A shell with no virtualenv activated, for this test file: PATH without any virtualenv's bin/
 * (a folder whose parent holds pyvenv.cfg) and no VIRTUAL_ENV. Every stack and command the file
 * starts afterwards inherits it (jest gives each test file its own process.env).
 */
export function deactivateVirtualenvs(): void {
  process.env.PATH = (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => dir !== "" && !existsSync(path.join(dir, "..", "pyvenv.cfg")))
    .join(path.delimiter);
  delete process.env.VIRTUAL_ENV;
}

/** The registry's kind of a state resource of either face (dynamic or native type token). */
const kindOf = (type: string) => resourceByToken(type)?.kind;

/**
 * What exists or is recorded, by the registry's kind (`definition.kind`: `pod`, `sandbox`,
 * `cluster`, `network volume`, …): every registered kind is a key, so a kind added to the
 * registry is read, compared and leak-checked with no edit. `noIds()` is every kind empty.
 */
export type LiveIds = IdsByKind;

export interface E2EStack {
  stack: Stack;
  /** The program's folder. */
  readonly workDir: string;
  readonly emulator: RunningEmulator;
  control: EmulatorControl;
  /**
   * Stops the emulator and starts it again on the same port from its data directory: after
   * `down` ms, or once the promise `down` returns has settled (bounded by `maxDownMs`).
   */
  restartEmulator(down?: number | (() => Promise<unknown>), maxDownMs?: number): Promise<void>;
  /**
   * Runs the engine's CLI in the program's folder with the stack's environment (backend, home,
   * passphrase), for what the Automation API has no call for. Resolves with its output whatever
   * its exit code.
   */
  cli(args: string[]): Promise<CliResult>;
  /** The environment the engine's CLI runs with (backend, home, passphrase, the engine on PATH), for other commands that read the stack. */
  env(): NodeJS.ProcessEnv;
  /** The ids the stack's state knows, of every registered kind. */
  stateIds(): Promise<LiveIds>;
  /**
   * The ids of every registered kind that exist in the emulator, each kind's list read through
   * its definition's SDK family; the fixture's own objects (account volumes and SSH keys, public
   * templates, its cluster: what the account held when the emulator started) left out.
   */
  liveIds(): Promise<LiveIds>;
  /**
   * Everything the backend holds (state, history, backups, locks), as text: what someone with
   * the state bucket or database would see. Secrets must appear only as ciphertext.
   */
  stateText(): Promise<string>;
  /** Sets e2e:pods / e2e:sandboxes / e2e:clusters / e2e:endpoints (the program declares exactly these). */
  declare(spec: { pods?: Record<string, unknown>; sandboxes?: Record<string, unknown>; clusters?: Record<string, unknown>; endpoints?: Record<string, unknown>; deleteBeforeReplace?: string[] }): Promise<void>;
  /**
   * Starts `pulumi up --yes` as its own process group, as a user or a CI job runs it, so a
   * test can kill the CLI alone (`pid`) or the whole tree (`-pid`) in the middle.
   */
  spawnUp(): ChildProcess;
  /** `pulumi cancel`: clears the lock a killed run leaves on the backend (no process when there is none). */
  cancel(): Promise<void>;
  /**
   * Between cases: faults cleared, `destroy`, then fails if anything of any kind, or any
   * cluster member pod, still exists in the emulator beside the fixture's (a leak), and resets
   * the emulator and its request log.
   */
  cleanSlate(): Promise<void>;
  /**
   * After the last case: the emulator closed, the state and the stack's settings file removed.
   * What the stack still holds needs no `destroy` first: it exists only in that emulator.
   */
  dispose(): Promise<void>;
}

/**
 * The Automation API's calls that only read or write the engine's files, done here without a
 * `pulumi` process (test/e2e/engine-files.ts says why, and how each format is read): an `up`
 * ran three CLI processes (the operation, `stack output`, `stack history`) where it now runs
 * one, and setting config runs none.
 * - Outputs: the stack resource's outputs in the last checkpoint, secrets decrypted with the
 *   stack's passphrase (what `pulumi stack output --json --show-secrets` prints), each marked
 *   secret as the Automation API marks it (a top-level secret).
 * - The summary of `up`, `refresh` and `destroy`: the newest update of the backend's history.
 * - `stack export`: the last checkpoint, as the backend holds it (secrets as ciphertext).
 * - Config set, set-all, rm and rm-all: the stack's settings file (a `--path` key still goes
 *   through the CLI).
 */
export function engineFilesInsteadOfCli(stack: Stack, store: StateStore, workDir: string, passphrase: string): void {
  const workspace = stack.workspace as LocalWorkspace;
  const settings = new StackSettings(path.join(workDir, `Pulumi.${stack.name}.yaml`), StackSettings.projectOf(workDir), passphrase);
  workspace.stackOutputs = async (stackName) => {
    const deployment = await store.latest(stackName);
    const recorded = (deployment.resources ?? []).find((r) => r.type === "pulumi:pulumi:Stack")?.outputs ?? {};
    const crypter = await checkpointCrypter(deployment, passphrase);
    return Object.fromEntries(Object.entries(recorded).map(([key, value]) => [key, { value: plainValue(value, crypter), secret: isSecretValue(value) }]));
  };
  const info = stack.info.bind(stack);
  stack.info = async (showSecrets?: boolean) => {
    const last = await store.lastUpdate(stack.name);
    return last === undefined ? info(showSecrets) : (updateSummary(last) as unknown as UpdateSummary);
  };
  workspace.exportStack = async (stackName) => ({ version: 3, deployment: await store.latest(stackName) });
  const viaCli = {
    setAllConfig: workspace.setAllConfig.bind(workspace),
    setConfig: workspace.setConfig.bind(workspace),
    removeConfig: workspace.removeConfig.bind(workspace),
    removeAllConfig: workspace.removeAllConfig.bind(workspace),
  };
  const ours = (stackName: string, path?: boolean) => stackName === stack.name && !path;
  workspace.setAllConfig = (stackName, config, path) => (ours(stackName, path) ? settings.setAll(config) : viaCli.setAllConfig(stackName, config, path));
  workspace.setConfig = (stackName, key, value, path) => (ours(stackName, path) ? settings.setAll({ [key]: value }) : viaCli.setConfig(stackName, key, value, path));
  workspace.removeConfig = async (stackName, key, path) => (ours(stackName, path) ? settings.removeAll([key]) : viaCli.removeConfig(stackName, key, path));
  workspace.removeAllConfig = async (stackName, keys, path) => (ours(stackName, path) ? settings.removeAll(keys) : viaCli.removeAllConfig(stackName, keys, path));
}

/** What a run of the engine's CLI printed, and its exit code. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `pulumi <args> --stack <stack> --non-interactive` in `workDir` with `env`, for what the
 * Automation API has no call for. Resolves with its output whatever its exit code.
 */
export function runPulumi(workDir: string, stack: string, env: NodeJS.ProcessEnv, args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(path.join(engineRoot(), "bin", "pulumi"), [...args, "--stack", stack, "--non-interactive"], { cwd: workDir, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : undefined) : 0;
      if (code === undefined) reject(error);
      else resolve({ code, stdout, stderr });
    });
  });
}

/** A stack's last checkpoint: what `pulumi stack export` prints as its deployment. */
export interface Deployment {
  /** `external`: a read resource (a `get`), which the stack records without owning it. */
  resources?: Array<{ urn?: string; type: string; id?: string; external?: boolean; outputs?: Record<string, unknown> }>;
  pending_operations?: Array<{ type: string; resource: { urn: string; type: string } }>;
  /** The secrets manager the checkpoint's ciphertexts are of (a passphrase's salt). */
  secrets_providers?: { type: string; state?: { salt?: string } };
}

/** A backend the suites read directly: the state of a stack, and everything it holds. */
export interface StateStore extends StateBackend {
  /** The last checkpoint of `stack`, or an empty one when it has none. */
  latest(stack: string): Promise<Deployment>;
  /** Every object it holds (state, history, backups, locks), as text. */
  text(): Promise<string>;
  /** The newest update of `stack`'s history (its `.history.json`), or undefined when it has none. */
  lastUpdate(stack: string): Promise<string | undefined>;
  /** The locks the backend holds for `stack` (one per run in progress, or killed before it could remove its own). */
  locks(stack: string): Promise<string[]>;
}

function readTree(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? readTree(full) : [readFileSync(full, "utf8")];
  });
}

/** A file backend in `stateDir`, read from its files. */
export function fileStore(stateDir: string): StateStore {
  return {
    ...fileBackend(stateDir),
    async latest(stack) {
      const stacks = path.join(stateDir, ".pulumi", "stacks");
      const projects = existsSync(stacks) ? readdirSync(stacks) : [];
      const file = projects.map((project) => path.join(stacks, project, `${stack}.json`)).find((candidate) => existsSync(candidate));
      if (!file) return {};
      return (JSON.parse(readFileSync(file, "utf8")) as { checkpoint?: { latest?: Deployment } }).checkpoint?.latest ?? {};
    },
    async text() {
      return readTree(stateDir).join("\n");
    },
    async lastUpdate(stack) {
      const histories = path.join(stateDir, ".pulumi", "history");
      const projects = existsSync(histories) ? readdirSync(histories) : [];
      const dir = projects.map((project) => path.join(histories, project, stack)).find((candidate) => existsSync(candidate));
      // `<stack>-<Unix nanoseconds>.history.json`: the newest sorts last.
      const newest = dir && readdirSync(dir).filter((file) => file.endsWith(".history.json")).sort().at(-1);
      return newest ? readFileSync(path.join(dir, newest), "utf8") : undefined;
    },
    async locks(stack) {
      // `.pulumi/locks/<organization>/<project>/<stack>/<lock id>.json` (older layouts had fewer levels).
      const files = (dir: string): string[] =>
        existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)])) : [];
      return files(path.join(stateDir, ".pulumi", "locks")).filter((file) => path.basename(path.dirname(file)) === stack);
    },
  };
}

/**
 * `program`: a folder under test/e2e/programs, or an absolute path (the examples).
 *
 * `name` is the stack's name; under the `public-shape` jest project it gets a `-public` suffix,
 * because the same suite may run in both projects at once and a stack's settings file
 * (Pulumi.<name>.yaml) sits in the program's folder, which both runs share.
 */
export async function createE2EStack(givenName: string, options: { program?: string; emulatorOptions?: Record<string, unknown>; store?: StateStore } = {}): Promise<E2EStack> {
  const name = process.env.COMPUTE_EMULATOR_SHAPE === "public" ? `${givenName}-public` : givenName;
  const scratch = mkdtempSync(path.join(tmpdir(), `compute-e2e-${name}-`));
  const emulatorOptions = { port: 0, profile: "fast" as const, quiet: true, dataDir: path.join(scratch, "emulator"), ...(options.emulatorOptions ?? {}) };
  let emulator = await startEmulator(emulatorOptions);
  const control = new EmulatorControl(emulator.url, emulator.adminToken);
  const workDir = programDir(options.program);
  const store = options.store ?? fileStore(path.join(scratch, "state"));
  let stack: Stack;
  let cliEnv: () => NodeJS.ProcessEnv;
  let removeSettings: () => void;
  try {
    ({ stack, cliEnv, removeSettings } = await createEngineStack({ name, workDir, backend: store, passphrase: PASSPHRASE, pathBefore: pythonPath(workDir) }));
  } catch (error) {
    // Nothing may outlive a failed set-up: a listening emulator would keep jest from exiting.
    await emulator.close();
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  engineFilesInsteadOfCli(stack, store, workDir, PASSPHRASE);
  try {
    await stack.setAllConfig({ "compute:baseUrl": { value: emulator.url }, "compute:apiKey": { value: emulator.apiKey, secret: true } });
  } catch (error) {
    removeSettings();
    await emulator.close();
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }

  // What the fixture holds is the account's, not the stack's (a reset brings back the same ids).
  const withClient = async <T>(read: (client: ComputeClient) => Promise<T>): Promise<T> => {
    const client = clientOf({ url: emulator.url, apiKey: emulator.apiKey });
    try {
      return await read(client);
    } finally {
      await client.close();
    }
  };
  const listed = () => withClient(listedIds);
  let fixture: LiveIds;
  let fixtureMembers: string[];
  try {
    fixture = await listed();
    fixtureMembers = await withClient(clusterMemberIds);
  } catch (error) {
    removeSettings();
    await emulator.close();
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  const liveIds = async (): Promise<LiveIds> => added(await listed(), fixture);
  return {
    stack,
    workDir,
    get emulator() {
      return emulator;
    },
    control,
    async restartEmulator(down = 0, maxDownMs = 120_000) {
      const port = Number(new URL(emulator.url).port);
      await emulator.close();
      if (typeof down === "number") {
        if (down > 0) await sleep(down);
      } else {
        let timer: NodeJS.Timeout | undefined;
        const settled = down().then(
          () => undefined,
          () => undefined,
        );
        await Promise.race([settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, maxDownMs)))]);
        clearTimeout(timer);
      }
      emulator = await startEmulator({ ...emulatorOptions, port });
    },
    async stateIds() {
      // What `pulumi stack export` prints as the deployment, read from the backend (ids and
      // types are plaintext in it) rather than through the CLI, which would also decrypt every
      // secret to print it.
      const deployment = await store.latest(name);
      const ids = (kind: string) => (deployment.resources ?? []).filter((r) => kindOf(r.type) === kind && r.id).map((r) => r.id!).sort();
      return Object.fromEntries(RESOURCES.map((definition) => [definition.kind, ids(definition.kind)]));
    },
    liveIds,
    env: () => cliEnv(),
    cli(args) {
      return runPulumi(workDir, name, cliEnv(), args);
    },
    stateText() {
      return store.text();
    },
    async declare(spec) {
      // One `pulumi config set-all` rather than one process per key.
      await stack.setAllConfig({
        "e2e:pods": { value: JSON.stringify(spec.pods ?? {}) },
        "e2e:sandboxes": { value: JSON.stringify(spec.sandboxes ?? {}) },
        "e2e:clusters": { value: JSON.stringify(spec.clusters ?? {}) },
        "e2e:endpoints": { value: JSON.stringify(spec.endpoints ?? {}) },
        "e2e:deleteBeforeReplace": { value: JSON.stringify(spec.deleteBeforeReplace ?? []) },
      });
    },
    spawnUp() {
      return spawn(path.join(engineRoot(), "bin", "pulumi"), ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", name], {
        cwd: workDir,
        env: cliEnv(),
        detached: true,
        stdio: "ignore",
      });
    },
    async cleanSlate() {
      await control.clearFaults();
      await stack.destroy();
      const left = await liveIds();
      // Member pods too: the pod family does not list them, and a member a cluster's delete left behind bills.
      const members = (await withClient(clusterMemberIds)).filter((id) => !fixtureMembers.includes(id));
      if (countOf(left) > 0 || members.length > 0) throw new Error(`destroy left resources behind: ${JSON.stringify({ ...left, clusterMembers: members })}`);
      await control.reset();
      await control.clearRequests();
    },
    async cancel() {
      // Only a run that died holding the lock leaves one; otherwise `pulumi cancel` has nothing
      // to clear, and its process is saved.
      if ((await store.locks(name)).length === 0) return;
      await promisify(execFile)(path.join(engineRoot(), "bin", "pulumi"), ["cancel", "--yes", "--stack", name], { cwd: workDir, env: cliEnv() });
    },
    async dispose() {
      // The stack's state goes with the scratch folder; its settings file sits in the program's.
      removeSettings();
      await emulator.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
