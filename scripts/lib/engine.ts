/**
 * The Pulumi engine as the end-to-end suites (test/e2e/harness.ts) and the benchmarks drive it,
 * stated once, beside the shell's scripts/lib/engine-env.sh, so that neither the suites nor the
 * benchmarks import from the other: the CLI that scripts/setup.sh built (COMPUTE_PULUMI_ROOT), of
 * the release package.json names (engine-version.ts), one Pulumi home with this clone's plugins
 * installed, and a stack of a directory program with its own file backend, run through the
 * Automation API as a user's `pulumi up` would run.
 *
 * - The Pulumi home is installed once per run, never per stack, and is never the user's
 *   ~/.pulumi: `npm test` installs it before jest starts (test/setup/global.ts, under the
 *   clone's .test-home/) and names it in COMPUTE_PULUMI_HOME; without that variable (the
 *   benchmarks, a script) the first stack of the process installs one in a temporary folder,
 *   removed when the process exits. Stacks share it safely: the engine only reads its plugins
 *   while it runs, and writes its workspace and credentials files atomically or under a lock.
 * - Each stack keeps its own state: a file backend in a folder of its caller's, or the backend a
 *   suite names (a PostgreSQL database: test/e2e/postgres.ts).
 * - The language hosts and the dynamic provider's launcher sit next to `pulumi` (set-up puts them
 *   there), so only the engine's bin/ goes on PATH and the engine has nothing to warn about.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { LocalWorkspace, PulumiCommand, Stack, type ConfigMap } from "@pulumi/pulumi/automation";
import { engineVersion } from "./engine-version";
import { REPO_ROOT } from "./root";

export { REPO_ROOT };

/** The engine root scripts/setup.sh printed (the folder holding bin/pulumi). */
export function engineRoot(): string {
  const root = process.env.COMPUTE_PULUMI_ROOT;
  if (!root) {
    throw new Error(
      "COMPUTE_PULUMI_ROOT is not set: run through `npm test` or `npm run bench`, which build or reuse the Pulumi engine, or set it to the engine root scripts/setup.sh prints",
    );
  }
  return root;
}

let command: Promise<PulumiCommand> | undefined;
/**
 * The engine's CLI, checked (`pulumi version`) once per process: it must be the release set-up
 * builds, so that a COMPUTE_PULUMI_ROOT left from an older set-up fails here, by name, rather
 * than as a difference of behaviour somewhere in a suite.
 */
export function pulumiCommand(): Promise<PulumiCommand> {
  command ??= PulumiCommand.get({ root: engineRoot() }).then((cli) => {
    const expected = engineVersion();
    if (String(cli.version) !== expected) {
      throw new Error(`the Pulumi CLI in ${engineRoot()} is v${cli.version}, not v${expected} (package.json, or PULUMI_VERSION): run scripts/setup.sh and use the engine root it prints`);
    }
    return cli;
  });
  return command;
}

/**
 * This clone's plugins (the native plugin and the cost policy pack's launcher) installed into
 * `home` by the very step scripts/setup.sh runs for a user, `compute_plugin_install`.
 */
export async function installPlugins(home: string): Promise<void> {
  mkdirSync(home, { recursive: true });
  await promisify(execFile)("bash", ["-c", 'source scripts/lib/engine-env.sh && compute_plugin_install "$1"', "install", engineRoot()], {
    cwd: REPO_ROOT,
    env: { ...process.env, PULUMI_HOME: home, PULUMI_SKIP_UPDATE_CHECK: "true" },
  });
}

let ownHome: Promise<string> | undefined;
/**
 * The Pulumi home every stack of this run uses: COMPUTE_PULUMI_HOME when the run's set-up
 * installed one, else one installed on first use for this process and removed at its exit.
 */
export function pulumiHome(): Promise<string> {
  const given = process.env.COMPUTE_PULUMI_HOME;
  if (given) return Promise.resolve(given);
  ownHome ??= (async () => {
    const home = mkdtempSync(path.join(tmpdir(), "compute-pulumi-home-"));
    process.once("exit", () => rmSync(home, { recursive: true, force: true }));
    await installPlugins(home);
    return home;
  })();
  return ownHome;
}

/**
 * The environment the engine runs a stack in, self-contained: the backend at `backend.url` (with
 * what it needs besides, such as a database's password, in `backend.env`), no update check, no
 * plugin download, the engine's bin/ first on PATH (after `pathBefore`), and no COMPUTE_*
 * setting from the caller's environment (a provider must take its settings from stack config).
 * The Pulumi home is passed beside it (LocalWorkspace's pulumiHome).
 */
export function engineEnv(backend: StateBackend, passphrase: string, pathBefore: string[] = []): Record<string, string> {
  return {
    ...backend.env,
    PULUMI_BACKEND_URL: backend.url,
    PULUMI_CONFIG_PASSPHRASE: passphrase,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    PATH: [...pathBefore, path.join(engineRoot(), "bin"), process.env.PATH ?? ""].join(path.delimiter),
    COMPUTE_BASE_URL: "",
    COMPUTE_API_KEY: "",
    COMPUTE_TEAM_ID: "",
  };
}

/** Where the engine keeps a stack's state: `PULUMI_BACKEND_URL`, and the variables it needs besides. */
export interface StateBackend {
  url: string;
  env?: Record<string, string>;
}

/** A file backend in `stateDir` (created if missing). */
export function fileBackend(stateDir: string): StateBackend {
  mkdirSync(stateDir, { recursive: true });
  return { url: `file://${stateDir}` };
}

export interface EngineStackOptions {
  /** The stack's name (unique among the stacks of `workDir` running at the same time). */
  name: string;
  /** The program's folder. */
  workDir: string;
  /** Where its state lives (`fileBackend(folder)` for most). */
  backend: StateBackend;
  passphrase: string;
  /** Folders put on PATH before the engine's bin/ (a Python program's virtualenv). */
  pathBefore?: string[];
  /** Stack config set once the stack exists, in one call. */
  config?: ConfigMap;
}

export interface EngineStack {
  stack: Stack;
  /** The environment `pulumi` runs in for this stack (for the CLI beside the Automation API). */
  cliEnv(): NodeJS.ProcessEnv;
  /**
   * Removes the stack's settings file next to the program (Pulumi.<name>.yaml); its state goes
   * with the caller's state folder.
   */
  removeSettings(): void;
}

/** A new stack of the program in `workDir` (`pulumi stack init`) in `backend`. */
export async function createEngineStack(options: EngineStackOptions): Promise<EngineStack> {
  const { name, workDir, backend, passphrase, pathBefore = [], config } = options;
  const envVars = engineEnv(backend, passphrase, pathBefore);
  const home = await pulumiHome();
  const settingsFile = path.join(workDir, `Pulumi.${name}.yaml`);
  const workspace = await LocalWorkspace.create({ workDir, pulumiHome: home, envVars, pulumiCommand: await pulumiCommand() });
  const stack = await Stack.create(name, workspace);
  try {
    if (config && Object.keys(config).length > 0) await stack.setAllConfig(config);
  } catch (error) {
    rmSync(settingsFile, { force: true });
    throw error;
  }
  return {
    stack,
    cliEnv: () => ({ ...process.env, ...envVars, PULUMI_HOME: home }),
    removeSettings: () => rmSync(settingsFile, { force: true }),
  };
}
