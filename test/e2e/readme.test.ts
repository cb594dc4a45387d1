import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { startEmulator } from "../../emulator";
import { installPlugins } from "../../bench/lib/engine";
import { deactivateVirtualenvs, engineRoot, PYTHON_VENV, REPO_ROOT } from "./harness";

jest.setTimeout(10 * 60_000);

/** How long the steps of one project may take, all together (the Python ones make a venv). */
const STEPS_TIMEOUT_MS = 5 * 60_000;

type RunningEmulator = Awaited<ReturnType<typeof startEmulator>>;

/**
 * The README's first steps of one language: each fenced block that follows a
 * `<!-- first-steps:<language> <name> -->` line, by name: the files of the project (`Pulumi.yaml`,
 * `__main__.py`), `clone` (the set-up, once, in the clone) and `project` (in the project's folder).
 */
function firstSteps(language: string): Record<string, string> {
  const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
  const blocks: Record<string, string> = {};
  for (const [, lang, name, body] of readme.matchAll(/^<!-- first-steps:(\w+) (\S+) -->\n```\w*\n([\s\S]*?)\n```$/gm)) {
    if (lang === language) blocks[name] = body;
  }
  return blocks;
}

/** A path for the shell, where the README has it bare (`<this clone>/dist/python`). */
const shellQuoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The README's placeholders, and what stands for them here: the emulator of this case for the
 * emulator's default address, its development key for `<key>`, and the engine of this run for
 * its default place (a run's engine may live elsewhere: COMPUTE_ENGINE_CACHE).
 */
function substitute(steps: string, emulator: RunningEmulator): string {
  const values: Array<[string, string]> = [
    ["$HOME/.cache/compute-provider/pulumi-v3.248.0", engineRoot()],
    ["http://127.0.0.1:8787", emulator.url],
    ["<key>", emulator.apiKey],
    ["<wandb key>", "wandb-readme-key"],
    ["<passphrase>", "readme-passphrase"],
    ["<this clone>", shellQuoted(REPO_ROOT)],
  ];
  const script = values.reduce((text, [placeholder, value]) => text.split(placeholder).join(value), steps);
  // A placeholder the README gained and this list lacks would reach the shell as a redirection.
  expect(script).not.toMatch(/<[a-z][a-z ]*>/);
  return script;
}

/**
 * The environment of a new user's shell after the clone's set-up: no virtualenv activated, no
 * engine on PATH (the steps put it there), no PULUMI_* or COMPUTE_* setting of this run, a Pulumi
 * home of its own (`home`). Settings of the tools stand in for the user, never for a step:
 * `pulumi up` without --yes asks for a confirmation, which PULUMI_SKIP_CONFIRMATIONS gives (no
 * terminal here); pip installs from the wheelhouse scripts/setup-python.sh filled (no PyPI in a
 * test); the engine downloads nothing (no update check, no plugin).
 */
function userEnv(home: string): NodeJS.ProcessEnv {
  deactivateVirtualenvs();
  const engineBin = path.join(engineRoot(), "bin");
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(PULUMI|COMPUTE)_/.test(key)));
  env.PATH = (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => path.resolve(dir) !== engineBin)
    .join(path.delimiter);
  const wheelhouse = path.join(PYTHON_VENV, ".wheelhouse");
  if (!existsSync(wheelhouse)) throw new Error(`${wheelhouse} is missing: run \`bash scripts/setup-python.sh\` (npm test does) first`);
  return {
    ...env,
    PULUMI_HOME: home,
    PULUMI_SKIP_CONFIRMATIONS: "true",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PIP_NO_INDEX: "1",
    PIP_FIND_LINKS: readFileSync(wheelhouse, "utf8").trim(),
    PIP_DISABLE_PIP_VERSION_CHECK: "1",
  };
}

/** Runs `script` with bash in `cwd`, stopping at the first step that fails; never hangs. */
function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | string; output: string }> {
  return new Promise((resolve) => {
    execFile("bash", ["-e", "-x", "-c", script], { cwd, env, timeout: STEPS_TIMEOUT_MS, killSignal: "SIGKILL", maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (error.code ?? error.signal ?? "failed") : 0;
      resolve({ code, output: `${stdout}\n${stderr}` });
    });
  });
}

interface FirstStepsRun {
  dir: string;
  /** The stack's state file in the folder's own backend (`pulumi login "file://$PWD"`). */
  stateFile: string;
  /** The shell's environment, before the steps change it. */
  env: NodeJS.ProcessEnv;
  emulator: RunningEmulator;
  code: number | string;
  output: string;
}

/**
 * The README's steps for `language`, run word for word in an empty folder with a fresh Pulumi
 * home, against an emulator of their own (127.0.0.1, a free port). The clone's step must be the
 * set-up `npm test` has already run before any suite (`npm run setup`, `setup:python`, `setup:go`):
 * running it again here would rebuild dist/ under the suites that run beside this one. What it
 * leaves in the user's Pulumi home, the two plugins, is installed into the fresh one by the very
 * function it runs (compute_plugin_install).
 */
function describeFirstSteps(language: "yaml" | "python" | "go", files: string[], clone: string, check: (run: FirstStepsRun) => Promise<void>): void {
  describe(`the README's ${language} first steps, word for word, in an empty folder`, () => {
    const run = {} as FirstStepsRun;
    let scratch: string | undefined;

    beforeAll(async () => {
      const steps = firstSteps(language);
      expect(Object.keys(steps).sort()).toEqual([...files, "clone", "project"].sort());
      expect(steps.clone.replace(/#.*$/gm, "").trim()).toBe(clone);
      scratch = realpathSync(mkdtempSync(path.join(tmpdir(), `compute-readme-${language}-`)));
      run.dir = path.join(scratch, "project");
      mkdirSync(run.dir);
      for (const file of files) writeFileSync(path.join(run.dir, file), `${steps[file]}\n`);
      const project = /^name:\s*(\S+)/m.exec(steps["Pulumi.yaml"])?.[1] ?? "";
      run.stateFile = path.join(run.dir, ".pulumi", "stacks", project, "dev.json");
      const home = path.join(scratch, "pulumi-home");
      await installPlugins(home);
      run.emulator = await startEmulator({ port: 0, profile: "fast", quiet: true, dataDir: path.join(scratch, "emulator") });
      run.env = userEnv(home);
      Object.assign(run, await bash(substitute(steps.project, run.emulator), run.dir, run.env));
    });
    afterAll(async () => {
      await run.emulator?.close();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    it("every step succeeds, and the stack is up in the folder's own backend", async () => {
      if (run.code !== 0) throw new Error(`the steps failed (${run.code}):\n${run.output}`);
      expect(run.output).toMatch(/Created stack 'dev'/);
      expect(run.output).not.toMatch(/from \$PATH/);
      expect(readFileSync(run.stateFile, "utf8")).not.toContain(run.emulator.apiKey);
      await check(run);
    });
  });
}

interface LivePod {
  id: string;
  image: string;
  mounts: { network?: Array<{ volumeId: string; path: string }> };
}

/** What exists in the emulator: pods and sandboxes (they bill), the account's network volumes and templates. */
async function live(emulator: RunningEmulator): Promise<{
  pods: LivePod[];
  sandboxes: Array<{ id: string }>;
  volumes: Array<{ id: string; name: string }>;
  templates: Array<{ id: string; name: string; image: string }>;
}> {
  const get = async <T>(apiPath: string): Promise<T> => {
    const response = await fetch(`${emulator.url}${apiPath}`, { headers: { authorization: `Bearer ${emulator.apiKey}` } });
    return (await response.json()) as T;
  };
  return {
    pods: (await get<{ pods: LivePod[] }>("/v2/pods")).pods,
    sandboxes: (await get<{ sandboxes: Array<{ id: string }> }>("/v2/sandboxes")).sandboxes,
    volumes: (await get<{ networkVolumes: Array<{ id: string; name: string }> }>("/v2/network-volumes")).networkVolumes,
    templates: (await get<{ templates: Array<{ id: string; name: string; image: string }> }>("/v2/templates")).templates,
  };
}

/**
 * The README's stack: a network volume and a template the stack made (the owner mark follows
 * the name), and the one pod made from that template with that volume mounted.
 */
async function expectVolumeTemplateAndPod(run: FirstStepsRun): Promise<LivePod> {
  const { pods, volumes, templates } = await live(run.emulator);
  const state = readFileSync(run.stateFile, "utf8");
  expect(pods).toHaveLength(1);
  // The account's own (the fixture's) are there too: the stack's are those its state holds.
  const volume = volumes.find((v) => state.includes(`"id":"${v.id}"`));
  const template = templates.find((t) => state.includes(`"id":"${t.id}"`));
  expect(volume?.name).toMatch(/^checkpoints-[0-9a-f]{8}~research\/dev~/);
  expect(template?.name).toMatch(/^pytorch-[0-9a-f]{8}~research\/dev~/);
  expect(pods[0].image).toBe(template!.image);
  expect(pods[0].mounts.network).toEqual([{ volumeId: volume!.id, path: "/checkpoints" }]);
  expect(state).toContain(`"id":"${pods[0].id}"`);
  return pods[0];
}

describeFirstSteps("yaml", ["Pulumi.yaml"], "npm run setup", async (run) => {
  await expectVolumeTemplateAndPod(run);
  const { sandboxes } = await live(run.emulator);
  expect(sandboxes).toHaveLength(1);
  const state = readFileSync(run.stateFile, "utf8");
  expect(state).toContain(`"id":"${sandboxes[0].id}"`);
});

describeFirstSteps("python", ["Pulumi.yaml", "__main__.py"], "npm run setup:python", async (run) => {
  // The program ran in the project's venv: the python of the shell's PATH has no pulumi, so a
  // host that ignored `virtualenv: venv` would have failed the steps.
  expect(existsSync(path.join(run.dir, "venv", "bin", "python"))).toBe(true);
  for (const python of ["python3", "python"]) {
    expect(spawnSync(python, ["-c", "import pulumi"], { env: run.env, cwd: run.dir }).status).not.toBe(0);
  }
  await expectVolumeTemplateAndPod(run);
  const { sandboxes } = await live(run.emulator);
  expect(sandboxes).toHaveLength(1);
});

describeFirstSteps("go", ["Pulumi.yaml", "main.go"], "npm run setup:go", async (run) => {
  // The project's go.mod, as the steps made it: the compute SDK from this clone, the Pulumi Go
  // SDK at the engine's release.
  const goMod = readFileSync(path.join(run.dir, "go.mod"), "utf8");
  expect(goMod).toContain(`example.com/pulumi-compute/sdk/go => ${path.join(REPO_ROOT, "dist", "go")}`);
  expect(goMod).toMatch(/github\.com\/pulumi\/pulumi\/sdk\/v3 v3\.248\.0/);
  await expectVolumeTemplateAndPod(run);
  const { sandboxes } = await live(run.emulator);
  expect(sandboxes).toHaveLength(1);
});
