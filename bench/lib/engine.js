"use strict";
/**
 * Drives the real Pulumi engine through the Automation API over the bench's directory program,
 * as `pulumi up` would run for a user (same set-up as test/e2e/harness.ts): a file backend in a
 * scratch directory, its own PULUMI_HOME (the native plugin installed in it), and the engine
 * built by scripts/setup.sh on PATH (with
 * the language hosts and the dynamic provider's launcher next to `pulumi`, where the engine finds
 * them without a "from $PATH" warning).
 */
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { execFile } = require("node:child_process");
const { promisify } = require("node:util");
const { LocalWorkspace, PulumiCommand } = require("@pulumi/pulumi/automation");

function engineRoot() {
  const root = process.env.COMPUTE_PULUMI_ROOT;
  if (!root) throw new Error("COMPUTE_PULUMI_ROOT is not set: run the benchmarks with `npm run bench`");
  return root;
}

/** A scratch directory under the OS temp dir, removed by `cleanupScratch`. */
function scratchDir(name) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `compute-bench-${name}-`));
}

function cleanupScratch(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
}

let commandPromise;
/** The engine's CLI (checked once per run), from COMPUTE_PULUMI_ROOT. */
async function pulumiCommand() {
  commandPromise ??= PulumiCommand.get({ root: engineRoot() });
  return commandPromise;
}

/**
 * This clone's plugins installed into `pulumiHome` by the step scripts/setup.sh runs for a user
 * (`compute_plugin_install`; the native plugin's launcher is written by that set-up).
 */
async function installNativePlugin(pulumiHome, envVars) {
  await promisify(execFile)("bash", ["-c", 'source scripts/lib/engine-env.sh && compute_plugin_install "$1"', "install", engineRoot()], {
    cwd: path.join(__dirname, "..", ".."),
    env: { ...process.env, ...envVars, PULUMI_HOME: pulumiHome },
  });
}

/**
 * A stack of `programs/<program>` against one emulator. `config` is stack config set in one
 * call (values are strings or numbers; `compute:apiKey` is set as a secret).
 */
async function createStack({ name, program = "fleet", emulator, config = {} }) {
  const root = engineRoot();
  const scratch = scratchDir(name);
  const stateDir = path.join(scratch, "state");
  let stack;
  try {
    fs.mkdirSync(stateDir, { recursive: true });
    const envVars = {
      PULUMI_BACKEND_URL: `file://${stateDir}`,
      PULUMI_CONFIG_PASSPHRASE: "bench-passphrase",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_NODEJS_TRANSPILE_ONLY: "true",
      PATH: [path.join(root, "bin"), process.env.PATH ?? ""].join(path.delimiter),
      COMPUTE_BASE_URL: "",
      COMPUTE_API_KEY: "",
      COMPUTE_TEAM_ID: "",
    };
    await installNativePlugin(path.join(scratch, "home"), envVars);
    stack = await LocalWorkspace.createOrSelectStack(
      { stackName: name, workDir: path.join(__dirname, "..", "programs", program) },
      { pulumiHome: path.join(scratch, "home"), envVars, pulumiCommand: await pulumiCommand() },
    );
    const all = {
      "compute:baseUrl": { value: emulator.url },
      "compute:apiKey": { value: emulator.apiKey, secret: true },
    };
    for (const [key, value] of Object.entries(config)) all[key] = { value: String(value) };
    await stack.setAllConfig(all);
  } catch (error) {
    fs.rmSync(path.join(__dirname, "..", "programs", program, `Pulumi.${name}.yaml`), { force: true });
    cleanupScratch(scratch);
    throw error;
  }

  /** Keeps the tail of the engine's output, shown if an operation fails. */
  let output = "";
  const onOutput = (text) => {
    output = (output + text).slice(-20000);
  };

  return {
    stack,
    stateDir,
    async setConfig(values) {
      const entries = {};
      for (const [key, value] of Object.entries(values)) entries[key] = { value: String(value) };
      await stack.setAllConfig(entries);
    },
    /** `pulumi up`, timed from the call to its answer. `parallel` undefined = the engine default. */
    async up({ parallel } = {}) {
      output = "";
      const started = performance.now();
      let result;
      try {
        result = await stack.up({ parallel, onOutput });
      } catch (error) {
        error.message += `\n--- engine output (tail) ---\n${output}`;
        throw error;
      }
      const seconds = (performance.now() - started) / 1000;
      if (result.summary.result !== "succeeded") throw new Error(`up ${result.summary.result}\n${output}`);
      return { seconds, summary: result.summary };
    },
    async destroy() {
      output = "";
      try {
        await stack.destroy({ onOutput, parallel: 64 });
      } catch (error) {
        error.message += `\n--- engine output (tail) ---\n${output}`;
        throw error;
      }
    },
    /** The deployment as the engine exports it (`pulumi stack export`). */
    async exportDeployment() {
      return (await stack.exportStack()).deployment;
    },
    /** The file backend's own stack file (what a state bucket holds), in bytes. */
    stateFileBytes() {
      const files = [];
      const walk = (dir) => {
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
    async dispose() {
      try {
        await stack.workspace.removeStack(name, { force: true });
      } catch {
        // the scratch directory goes away below anyway
      }
      // `stack rm` removes the stack's settings file next to the program; make sure of it.
      fs.rmSync(path.join(__dirname, "..", "programs", program, `Pulumi.${name}.yaml`), { force: true });
      cleanupScratch(scratch);
    },
  };
}

module.exports = { engineRoot, createStack, pulumiCommand, scratchDir, cleanupScratch };
