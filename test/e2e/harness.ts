/**
 * Drives the real Pulumi engine (CLI built by scripts/install-pulumi-engine.sh) through the
 * Automation API over a directory program, each stack against its own emulator and its own
 * state directory, as a user's `pulumi up` would run: TypeScript programs (dynamic resources)
 * and YAML programs (the native plugin, installed into the stack's own Pulumi home as
 * scripts/setup.sh installs it for a user).
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand, type Stack } from "@pulumi/pulumi/automation";
import { startEmulator } from "../../emulator";
import { sleep } from "../helpers/fixtures";
import { EmulatorControl } from "../../emulator/control-client";

export const REPO_ROOT = path.resolve(__dirname, "../..");

type RunningEmulator = Awaited<ReturnType<typeof startEmulator>>;

export function engineRoot(): string {
  const root = process.env.COMPUTE_PULUMI_ROOT;
  if (!root) {
    throw new Error("COMPUTE_PULUMI_ROOT is not set: run the suites through `npm test`, which builds or reuses the Pulumi engine");
  }
  return root;
}

/**
 * This clone's plugins (the native plugin and the cost policy pack's launcher) installed into
 * `pulumiHome` by the very step scripts/setup.sh runs for a user, `compute_plugin_install`.
 */
async function installPlugins(pulumiHome: string, env: Record<string, string>): Promise<void> {
  await promisify(execFile)("bash", ["-c", 'source scripts/lib/engine-env.sh && compute_plugin_install "$1"', "install", engineRoot()], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, PULUMI_HOME: pulumiHome },
  });
}

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
  /** Stops the emulator and starts it again on the same port from its data directory. */
  restartEmulator(downMs?: number): Promise<void>;
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
  dispose(): Promise<void>;
}

function readTree(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? readTree(full) : [readFileSync(full, "utf8")];
  });
}

/** `program`: a folder under test/e2e/programs, or an absolute path (the examples). */
export async function createE2EStack(name: string, options: { program?: string; emulatorOptions?: Record<string, unknown> } = {}): Promise<E2EStack> {
  const scratch = mkdtempSync(path.join(tmpdir(), `compute-e2e-${name}-`));
  const emulatorOptions = { port: 0, profile: "fast" as const, quiet: true, dataDir: path.join(scratch, "emulator"), ...(options.emulatorOptions ?? {}) };
  let emulator = await startEmulator(emulatorOptions);
  const control = new EmulatorControl(emulator.url, emulator.adminToken);
  let stack: Stack;
  let envVars: Record<string, string>;
  let workDir: string;
  try {
    const pulumiCommand = await PulumiCommand.get({ root: engineRoot() });
    envVars = {
      PULUMI_BACKEND_URL: `file://${path.join(scratch, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: "e2e-passphrase",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_NODEJS_TRANSPILE_ONLY: "true",
      // The engine's bin/ alone: the language hosts and the dynamic provider's launcher sit
      // there (scripts/setup.sh), where the engine finds them without a "from $PATH" warning.
      PATH: [...pythonPath(programDir(options.program)), path.join(engineRoot(), "bin"), process.env.PATH ?? ""].join(path.delimiter),
      // The provider must take its settings from stack config, not from a stray environment.
      COMPUTE_BASE_URL: "",
      COMPUTE_API_KEY: "",
      COMPUTE_TEAM_ID: "",
    };
    mkdirSync(path.join(scratch, "state"), { recursive: true });
    await installPlugins(path.join(scratch, "home"), envVars);
    workDir = programDir(options.program);
    stack = await LocalWorkspace.createOrSelectStack({ stackName: name, workDir }, { pulumiHome: path.join(scratch, "home"), envVars, pulumiCommand });
    await stack.setConfig("compute:baseUrl", { value: emulator.url });
    await stack.setConfig("compute:apiKey", { value: emulator.apiKey, secret: true });
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
  const cliEnv = () => ({ ...process.env, ...envVars, PULUMI_HOME: path.join(scratch, "home") });
  return {
    stack,
    workDir,
    get emulator() {
      return emulator;
    },
    control,
    async restartEmulator(downMs = 0) {
      const port = Number(new URL(emulator.url).port);
      await emulator.close();
      if (downMs > 0) await sleep(downMs);
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
      await stack.setConfig("e2e:pods", { value: JSON.stringify(spec.pods ?? {}) });
      await stack.setConfig("e2e:sandboxes", { value: JSON.stringify(spec.sandboxes ?? {}) });
      await stack.setConfig("e2e:deleteBeforeReplace", { value: JSON.stringify(spec.deleteBeforeReplace ?? []) });
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
      try {
        await stack.workspace.removeStack(name, { force: true });
      } catch {
        // the state directory goes away below anyway
      }
      await emulator.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
