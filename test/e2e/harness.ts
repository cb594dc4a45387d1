/**
 * Drives the real Pulumi engine (CLI built by scripts/install-pulumi-engine.sh) through the
 * Automation API over a directory program, each stack against its own emulator and its own
 * state directory, as a user's `pulumi up` would run: TypeScript programs (dynamic resources)
 * and YAML programs (the native plugin, installed into the run's Pulumi home as
 * scripts/setup.sh installs it for a user). The engine's side (its environment, the Pulumi
 * home installed once per run, stack creation) is bench/lib/engine.ts, shared with the
 * benchmarks.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { startEmulator } from "../../emulator";
import { sleep } from "../helpers/fixtures";
import { EmulatorControl } from "../../emulator/control-client";
import { createEngineStack, engineRoot, REPO_ROOT } from "../../bench/lib/engine";

export { engineRoot, REPO_ROOT };

type RunningEmulator = Awaited<ReturnType<typeof startEmulator>>;

/** `program`: a folder under test/e2e/programs, or an absolute path (the examples). */
function programDir(program = "stack"): string {
  return path.isAbsolute(program) ? program : path.join(__dirname, "programs", program);
}

/** The virtualenv scripts/setup-python.sh makes: pulumi and the generated pulumi_compute. */
export const PYTHON_VENV = path.join(REPO_ROOT, ".venv");

/**
 * What a Python program needs first on PATH: the virtualenv's `python` (the engine's Python
 * host runs the first one on PATH, as a user's activated virtualenv provides). None for others.
 */
function pythonPath(dir: string): string[] {
  const project = readFileSync(path.join(dir, "Pulumi.yaml"), "utf8");
  if (!/^runtime:\s*(\n\s+name:\s*)?python\b/m.test(project)) return [];
  if (!existsSync(path.join(PYTHON_VENV, "bin", "python"))) {
    throw new Error(`${PYTHON_VENV} is missing: run \`bash scripts/setup-python.sh\` (npm test does) before the Python end-to-end suites`);
  }
  return [path.join(PYTHON_VENV, "bin")];
}

/** The resource types of both faces: the dynamic resources and the native plugin's. */
const POD_TYPES = new Set(["pulumi-nodejs:dynamic/compute:Pod", "compute:index:Pod"]);
const SANDBOX_TYPES = new Set(["pulumi-nodejs:dynamic/compute:Sandbox", "compute:index:Sandbox"]);

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
  cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Pod and sandbox ids the stack's state knows. */
  stateIds(): Promise<{ pods: string[]; sandboxes: string[] }>;
  /** Pod and sandbox ids that exist (and bill) in the emulator. */
  liveIds(): Promise<{ pods: string[]; sandboxes: string[] }>;
  /**
   * Every file the file backend wrote (state, history, backups), as text: what someone with
   * the state bucket would see. Secrets must appear only as ciphertext.
   */
  stateFilesText(): string;
  /** Sets e2e:pods / e2e:sandboxes (the program declares exactly these). */
  declare(spec: { pods?: Record<string, unknown>; sandboxes?: Record<string, unknown>; deleteBeforeReplace?: string[] }): Promise<void>;
  /**
   * Starts `pulumi up --yes` as its own process group, as a user or a CI job runs it, so a
   * test can kill the CLI alone (`pid`) or the whole tree (`-pid`) in the middle.
   */
  spawnUp(): ChildProcess;
  /** `pulumi cancel`: clears the lock a killed run leaves on the file backend. */
  cancel(): Promise<void>;
  /**
   * Between cases: faults cleared, `destroy`, then fails if anything still exists in the
   * emulator (a leak), and resets the emulator and its request log.
   */
  cleanSlate(): Promise<void>;
  /**
   * After the last case: the emulator closed, the state and the stack's settings file removed.
   * What the stack still holds needs no `destroy` first: it exists only in that emulator.
   */
  dispose(): Promise<void>;
}

function readTree(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? readTree(full) : [readFileSync(full, "utf8")];
  });
}

/**
 * `program`: a folder under test/e2e/programs, or an absolute path (the examples).
 *
 * `name` is the stack's name; under the `public-shape` jest project it gets a `-public` suffix,
 * because the same suite may run in both projects at once and a stack's settings file
 * (Pulumi.<name>.yaml) sits in the program's folder, which both runs share.
 */
export async function createE2EStack(givenName: string, options: { program?: string; emulatorOptions?: Record<string, unknown> } = {}): Promise<E2EStack> {
  const name = process.env.COMPUTE_EMULATOR_SHAPE === "public" ? `${givenName}-public` : givenName;
  const scratch = mkdtempSync(path.join(tmpdir(), `compute-e2e-${name}-`));
  const emulatorOptions = { port: 0, profile: "fast" as const, quiet: true, dataDir: path.join(scratch, "emulator"), ...(options.emulatorOptions ?? {}) };
  let emulator = await startEmulator(emulatorOptions);
  const control = new EmulatorControl(emulator.url, emulator.adminToken);
  const workDir = programDir(options.program);
  let stack: Stack;
  let cliEnv: () => NodeJS.ProcessEnv;
  let removeSettings: () => void;
  try {
    ({ stack, cliEnv, removeSettings } = await createEngineStack({
      name,
      workDir,
      stateDir: path.join(scratch, "state"),
      passphrase: "e2e-passphrase",
      pathBefore: pythonPath(workDir),
      config: { "compute:baseUrl": { value: emulator.url }, "compute:apiKey": { value: emulator.apiKey, secret: true } },
    }));
  } catch (error) {
    // Nothing may outlive a failed set-up: a listening emulator would keep jest from exiting.
    await emulator.close();
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }

  const api = async (apiPath: string) => {
    const response = await fetch(`${emulator.url}${apiPath}`, { headers: { authorization: `Bearer ${emulator.apiKey}` } });
    return response.json() as Promise<Record<string, Array<{ id: string; cluster?: unknown }>>>;
  };
  const liveIds = async () => {
    const pods = (await api("/v2/pods")).pods.filter((p) => !p.cluster).map((p) => p.id).sort();
    const sandboxes = (await api("/v2/sandboxes")).sandboxes.map((s) => s.id).sort();
    return { pods, sandboxes };
  };
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
      const deployment = (await stack.exportStack()).deployment as { resources?: Array<{ type: string; id?: string }> };
      const ids = (types: Set<string>) => (deployment.resources ?? []).filter((r) => types.has(r.type) && r.id).map((r) => r.id!).sort();
      return { pods: ids(POD_TYPES), sandboxes: ids(SANDBOX_TYPES) };
    },
    liveIds,
    async cli(args) {
      return new Promise((resolve, reject) => {
        execFile(path.join(engineRoot(), "bin", "pulumi"), [...args, "--stack", name, "--non-interactive"], { cwd: workDir, env: cliEnv(), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
          const code = error ? (typeof error.code === "number" ? error.code : undefined) : 0;
          if (code === undefined) reject(error);
          else resolve({ code, stdout, stderr });
        });
      });
    },
    stateFilesText() {
      return readTree(path.join(scratch, "state")).join("\n");
    },
    async declare(spec) {
      // One `pulumi config set-all` rather than one process per key.
      await stack.setAllConfig({
        "e2e:pods": { value: JSON.stringify(spec.pods ?? {}) },
        "e2e:sandboxes": { value: JSON.stringify(spec.sandboxes ?? {}) },
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
      if (left.pods.length + left.sandboxes.length > 0) throw new Error(`destroy left resources behind: ${JSON.stringify(left)}`);
      await control.reset();
      await control.clearRequests();
    },
    async cancel() {
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
