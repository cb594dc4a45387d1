/**
 * A stack of one of the bench's programs (bench/programs) against one emulator, run through the
 * engine as the end-to-end suites run theirs (scripts/lib/engine.ts: the run's Pulumi home, the
 * engine from COMPUTE_PULUMI_ROOT, a file backend in a scratch folder), with what the scenarios
 * time and read: `up` timed from the call to its answer, `destroy`, the exported deployment and
 * the size of the backend's stack file; and, for a run a scenario kills in the middle, the CLI
 * as a child process of the bench's and `pulumi cancel`.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import type { ConfigMap, LocalWorkspace, Stack, UpResult } from "@pulumi/pulumi/automation";
import { createEngineStack, engineRoot, fileBackend, REPO_ROOT } from "../../scripts/lib/engine";

/** A scratch directory under the OS temp dir, removed by `cleanupScratch`. */
export function scratchDir(name: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `compute-bench-${name}-`));
}

export function cleanupScratch(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** The exported deployment, as far as the scenarios read it. */
export interface Deployment {
  resources?: Array<{ type: string; id?: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }>;
}

export interface BenchStack {
  stack: Stack;
  stateDir: string;
  setConfig(values: Record<string, string | number | boolean>): Promise<void>;
  /** `pulumi up`, timed from the call to its answer. `parallel` undefined = the engine default. */
  up(options?: { parallel?: number }): Promise<{ seconds: number; summary: UpResult["summary"] }>;
  /** `pulumi refresh` and `pulumi preview`, timed like `up`. */
  refresh(options?: { parallel?: number }): Promise<{ seconds: number }>;
  preview(options?: { parallel?: number }): Promise<{ seconds: number }>;
  destroy(options?: { parallel?: number }): Promise<void>;
  /** The deployment as the engine exports it (`pulumi stack export`). */
  exportDeployment(): Promise<Deployment>;
  /** The file backend's own stack file (what a state bucket holds), in bytes. */
  stateFileBytes(): number | undefined;
  /**
   * Sets (a string) or unsets (undefined) a variable of the environment the engine runs in for
   * this stack: the Automation API's operations (the workspace's `envVars`) and `spawnCli`.
   */
  setEnv(name: string, value: string | undefined): void;
  /**
   * `pulumi <args> --stack <name>` as a child process of this one, in the program's folder and
   * the stack's environment (with what `setEnv` set), stdout and stderr piped: a run a scenario
   * can kill, which the Automation API's cannot be.
   */
  spawnCli(args: string[]): ChildProcess;
  /** `pulumi cancel --yes`: clears the lock a killed run leaves on the file backend. */
  cancel(): Promise<void>;
  dispose(): Promise<void>;
}

const stringValues = (values: Record<string, string | number | boolean>): ConfigMap =>
  Object.fromEntries(Object.entries(values).map(([key, value]) => [key, { value: String(value) }]));

/**
 * A stack of `bench/programs/<program>` against `emulator`. `config` is stack config set in one
 * call (values are strings or numbers; `compute:apiKey` is set as a secret).
 */
export async function createStack(options: {
  name: string;
  program?: string;
  emulator: { url: string; apiKey: string };
  config?: Record<string, string | number | boolean>;
}): Promise<BenchStack> {
  const { name, program = "fleet", emulator, config = {} } = options;
  const workDir = path.join(REPO_ROOT, "bench", "programs", program);
  const scratch = scratchDir(name);
  const stateDir = path.join(scratch, "state");
  let created;
  try {
    created = await createEngineStack({
      name,
      workDir,
      backend: fileBackend(stateDir),
      passphrase: "bench-passphrase",
      config: {
        "compute:baseUrl": { value: emulator.url },
        "compute:apiKey": { value: emulator.apiKey, secret: true },
        ...stringValues(config),
      },
    });
  } catch (error) {
    cleanupScratch(scratch);
    throw error;
  }
  const { stack, removeSettings, cliEnv } = created;
  const workspace = stack.workspace as LocalWorkspace;
  /** The CLI's environment: the stack's, as the workspace holds it now (what `setEnv` changed included). */
  const env = (): NodeJS.ProcessEnv => ({ ...cliEnv(), ...workspace.envVars });
  const pulumi = path.join(engineRoot(), "bin", "pulumi");

  /** Keeps the tail of the engine's output, shown if an operation fails. */
  let output = "";
  const onOutput = (text: string) => {
    output = (output + text).slice(-20000);
  };
  const withOutput = (error: unknown) => {
    if (error instanceof Error) error.message += `\n--- engine output (tail) ---\n${output}`;
    return error;
  };

  /** One engine operation, timed from the call to its answer; its failure carries the output's tail. */
  const timed = async <T>(operation: () => Promise<T>): Promise<{ seconds: number; value: T }> => {
    output = "";
    const started = performance.now();
    try {
      const value = await operation();
      return { seconds: (performance.now() - started) / 1000, value };
    } catch (error) {
      throw withOutput(error);
    }
  };

  return {
    stack,
    stateDir,
    async setConfig(values) {
      await stack.setAllConfig(stringValues(values));
    },
    async up({ parallel } = {}) {
      const { seconds, value: result } = await timed(() => stack.up({ parallel, onOutput }));
      if (result.summary.result !== "succeeded") throw new Error(`up ${result.summary.result}\n${output}`);
      return { seconds, summary: result.summary };
    },
    refresh: ({ parallel } = {}) => timed(() => stack.refresh({ parallel, onOutput })),
    preview: ({ parallel } = {}) => timed(() => stack.preview({ parallel, onOutput })),
    async destroy({ parallel = 64 } = {}) {
      await timed(() => stack.destroy({ onOutput, parallel }));
    },
    async exportDeployment() {
      return (await stack.exportStack()).deployment as Deployment;
    },
    stateFileBytes() {
      const files: string[] = [];
      const walk = (dir: string) => {
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) {
            if (entry.name === "history" || entry.name === "backups" || entry.name === "locks") continue;
            walk(full);
          } else if (/\.json(\.gz)?$/.test(entry.name) && full.includes(`${path.sep}stacks${path.sep}`)) files.push(full);
        }
      };
      walk(stateDir);
      const file = files.find((f) => path.basename(f).startsWith(`${name}.json`));
      return file ? fs.statSync(file).size : undefined;
    },
    setEnv(variable, value) {
      if (value === undefined) delete workspace.envVars[variable];
      else workspace.envVars[variable] = value;
    },
    spawnCli(args) {
      return spawn(pulumi, [...args, "--stack", name], { cwd: workDir, env: env(), stdio: ["ignore", "pipe", "pipe"] });
    },
    async cancel() {
      await promisify(execFile)(pulumi, ["cancel", "--yes", "--stack", name], { cwd: workDir, env: env() });
    },
    async dispose() {
      // The state goes with the scratch folder; the settings file sits next to the program.
      removeSettings();
      cleanupScratch(scratch);
    },
  };
}
