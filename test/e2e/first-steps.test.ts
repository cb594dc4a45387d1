/**
 * The first steps of docs/install.md, word for word, for each language: a new user's project in
 * an empty folder outside the clone, with a fresh Pulumi home, installing only from the release
 * folder (`npm run release`), brought up against an emulator and destroyed.
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { startEmulator } from "../../emulator";
import { installPlugins } from "../../scripts/lib/engine";
import { deactivateVirtualenvs, engineRoot, PYTHON_VENV, REPO_ROOT } from "./harness";

jest.setTimeout(10 * 60_000);

/** How long the steps of one project may take, all together (npm and pip install, a Go build). */
const STEPS_TIMEOUT_MS = 5 * 60_000;

/** Where the first steps are written. */
const FIRST_STEPS_DOC = path.join(REPO_ROOT, "docs", "install.md");

/** The release folder `npm run release` builds (scripts/test.sh builds it before any suite). */
const RELEASE_DIR = path.join(REPO_ROOT, "dist", "release");

const VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;

type RunningEmulator = Awaited<ReturnType<typeof startEmulator>>;
type Language = "typescript" | "yaml" | "python" | "go";

/**
 * The steps of one language (or `release`): each fenced block that follows a
 * `<!-- first-steps:<language> <name> -->` line, by name: the project's files (`Pulumi.yaml`,
 * `index.ts`, …), `clone` (in the clone, once), `project` (in the project's folder) and `cleanup`.
 */
function firstSteps(language: Language | "release"): Record<string, string> {
  const doc = readFileSync(FIRST_STEPS_DOC, "utf8");
  const blocks: Record<string, string> = {};
  for (const [, lang, name, body] of doc.matchAll(/^<!-- first-steps:(\w+) (\S+) -->\n```\w*\n([\s\S]*?)\n```$/gm)) {
    if (lang === language) blocks[name] = body;
  }
  return blocks;
}

/** A path for the shell, where the doc has it bare (`<release>/pulumi-compute-….tgz`). */
const shellQuoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The doc's placeholders, and what stands for them here: the emulator of this case for the
 * emulator's default address, its development key for `<key>`, this clone and its release folder.
 */
function substitute(steps: string, emulator: RunningEmulator): string {
  const values: Array<[string, string]> = [
    ["http://127.0.0.1:8787", emulator.url],
    ["<key>", emulator.apiKey],
    ["<wandb key>", "wandb-readme-key"],
    ["<passphrase>", "readme-passphrase"],
    ["<this clone>", shellQuoted(REPO_ROOT)],
    ["<release>", shellQuoted(RELEASE_DIR)],
  ];
  const script = values.reduce((text, [placeholder, value]) => text.split(placeholder).join(value), steps);
  // A placeholder the doc gained and this list lacks would reach the shell as a redirection.
  expect(script).not.toMatch(/<[a-z][a-z ]*>/);
  return script;
}

/**
 * The environment of a new user's shell: no virtualenv activated, no engine on PATH (the steps
 * put it there), no PULUMI_* or COMPUTE_* setting of this run but where the engine cache lives (a
 * user's own setting, which the set-up read too), no NODE_OPTIONS (the run's deferred start of
 * @pulumi/pulumi, test/setup/lazy-pulumi-start.js, is the suites' and not a user's), a Pulumi
 * home of its own (`home`). Settings of
 * the tools stand in for the user, never for a step: `pulumi up`, `destroy` and `stack rm` without
 * --yes ask for a confirmation, which PULUMI_SKIP_CONFIRMATIONS gives (no terminal here); pip
 * installs from the wheelhouse scripts/setup-python.sh filled (no PyPI in a test); npm takes what
 * its cache holds (the set-up filled it) without asking the registry again; the engine downloads
 * nothing (no update check, no plugin).
 */
function userEnv(home: string): NodeJS.ProcessEnv {
  deactivateVirtualenvs();
  const engineBin = path.join(engineRoot(), "bin");
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => (!/^(PULUMI|COMPUTE)_/.test(key) || key === "COMPUTE_ENGINE_CACHE") && key !== "NODE_OPTIONS"),
  );
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
    npm_config_prefer_offline: "true",
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

/** The release folder's files, by what they are, named by this package's version. */
const RELEASE_FILES = {
  npm: `pulumi-compute-${VERSION}.tgz`,
  plugin: `pulumi-resource-compute-v${VERSION}-linux-amd64.tar.gz`,
  wheel: `pulumi_compute-${VERSION}-py3-none-any.whl`,
  sdist: `pulumi_compute-${VERSION}.tar.gz`,
  go: `pulumi-compute-go-v${VERSION}.tar.gz`,
};

describe("the release folder", () => {
  it("is what `npm run release` builds, once, in the clone", () => {
    const steps = firstSteps("release");
    expect(Object.keys(steps)).toEqual(["clone"]);
    // Run by scripts/test.sh before any suite: here it would rebuild dist/ under the suites beside.
    expect(steps.clone.replace(/#.*$/gm, "").trim()).toBe("npm run release");
  });

  it("holds the four artifacts of this version, and their checksums hold", () => {
    if (!existsSync(RELEASE_DIR)) throw new Error(`${RELEASE_DIR} is missing: run \`npm run release\` (npm test does, when it runs this suite)`);
    for (const file of Object.values(RELEASE_FILES)) expect([file, existsSync(path.join(RELEASE_DIR, file))]).toEqual([file, true]);
    const check = spawnSync("sha256sum", ["--quiet", "-c", "SHA256SUMS"], { cwd: RELEASE_DIR, encoding: "utf8" });
    expect(check.stdout + check.stderr).toBe("");
    expect(check.status).toBe(0);
    const listed = readFileSync(path.join(RELEASE_DIR, "SHA256SUMS"), "utf8").trim().split("\n").map((line) => line.split(/\s+/)[1]).sort();
    expect(listed).toEqual(Object.values(RELEASE_FILES).sort());
  });

  it("is what the README and docs/install.md name: every file they tell a user to install is there", () => {
    for (const doc of ["README.md", "docs/install.md"]) {
      const text = readFileSync(path.join(REPO_ROOT, doc), "utf8");
      const named = [...text.matchAll(/<release>\/([\w.-]+)/g)].map(([, file]) => file);
      expect([doc, named.length > 0]).toEqual([doc, true]);
      for (const file of named) expect([doc, file, Object.values(RELEASE_FILES).includes(file)]).toEqual([doc, file, true]);
      // The plugin's version, where a command names it apart from the file.
      for (const [, version] of text.matchAll(/plugin (?:install|rm) resource compute (\d[\w.-]*\d)/g)) expect([doc, version]).toEqual([doc, VERSION]);
      for (const [, version] of text.matchAll(/sdk\/go@v(\d[\w.-]*\d)/g)) expect([doc, version]).toEqual([doc, VERSION]);
    }
  });

  it("agrees with package.json and the schema: the npm package, the plugin it runs, and the Python and Go SDKs", () => {
    const schema = JSON.parse(readFileSync(path.join(REPO_ROOT, "schema.json"), "utf8")) as { version: string };
    expect(schema.version).toBe(VERSION);
    const inTar = (file: string, member: string) =>
      spawnSync("tar", ["-xOzf", path.join(RELEASE_DIR, file), member], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 }).stdout;
    expect((JSON.parse(inTar(RELEASE_FILES.npm, "package/package.json")) as { version: string }).version).toBe(VERSION);
    expect((JSON.parse(inTar(RELEASE_FILES.plugin, "./node_modules/pulumi-compute/package.json")) as { version: string }).version).toBe(VERSION);
    expect(inTar(RELEASE_FILES.sdist, `pulumi_compute-${VERSION}/PKG-INFO`)).toMatch(new RegExp(`^Version: ${VERSION.replace(/\./g, "\\.")}$`, "m"));
    // The generated SDKs name the plugin version they ask the engine for.
    expect(JSON.parse(inTar(RELEASE_FILES.go, "compute-go/compute/pulumi-plugin.json"))).toMatchObject({ name: "compute", version: VERSION });
  });
});

/**
 * The doc's steps for `language`, run word for word in an empty folder with a Pulumi home of its own
 * (fresh, or holding the clone's development plugins as a user's set-up leaves them: `setUpClone`),
 * against an emulator of their own (127.0.0.1, a free port): `project`, then `check`, then
 * `cleanup`, after which nothing the stack made is left.
 */
function describeFirstSteps(language: Language, files: string[], check: (run: FirstStepsRun) => Promise<void>, setUpClone = false): void {
  describe(`the ${language} first steps, word for word, in an empty folder`, () => {
    const run = {} as FirstStepsRun;
    let scratch: string | undefined;
    let shellState = "";

    beforeAll(async () => {
      const steps = firstSteps(language);
      expect(Object.keys(steps).sort()).toEqual([...files, "cleanup", "project"].sort());
      scratch = realpathSync(mkdtempSync(path.join(tmpdir(), `compute-first-steps-${language}-`)));
      run.dir = path.join(scratch, "project");
      mkdirSync(run.dir);
      for (const file of files) writeFileSync(path.join(run.dir, file), `${steps[file]}\n`);
      const project = /^name:\s*(\S+)/m.exec(steps["Pulumi.yaml"])?.[1] ?? "";
      run.stateFile = path.join(run.dir, ".pulumi", "stacks", project, "dev.json");
      run.emulator = await startEmulator({ port: 0, profile: "fast", quiet: true, dataDir: path.join(scratch, "emulator") });
      const home = path.join(scratch, "pulumi-home");
      // A user who also ran the clone's own set-up has its development plugin, of the same
      // version, in the same Pulumi home: the steps' install must replace it.
      if (setUpClone) await installPlugins(home);
      run.env = userEnv(home);
      // The cleanup continues the same shell (its PATH, its passphrase): what the steps exported
      // is kept for it.
      shellState = path.join(scratch, "shell-state.sh");
      Object.assign(run, await bash(`${substitute(steps.project, run.emulator)}\nexport -p >${shellQuoted(shellState)}`, run.dir, run.env));
    });
    afterAll(async () => {
      await run.emulator?.close();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    it("every step succeeds, and the stack is up in the folder's own backend", async () => {
      if (run.code !== 0) throw new Error(`the steps failed (${run.code}):\n${run.output}`);
      expect(run.output).toMatch(/Created stack 'dev'/);
      expect(run.output).not.toMatch(/from \$PATH/);
      const state = readFileSync(run.stateFile, "utf8");
      expect(state).not.toContain(run.emulator.apiKey);
      expect(state).not.toContain("wandb-readme-key");
      await check(run);
    });

    it("the cleanup destroys what the stack made and removes the stack", async () => {
      if (run.code !== 0) throw new Error("the steps failed: nothing to clean up");
      const before = await live(run.emulator);
      const cleanup = await bash(`source ${shellQuoted(shellState)}\n${substitute(firstSteps(language).cleanup, run.emulator)}`, run.dir, run.env);
      if (cleanup.code !== 0) throw new Error(`the cleanup failed (${cleanup.code}):\n${cleanup.output}`);
      const after = await live(run.emulator);
      expect(after.pods).toEqual([]);
      expect(after.sandboxes).toEqual([]);
      // The account's own volumes and templates (the fixture's) stay; the stack's are gone.
      expect(after.volumes.length).toBe(before.volumes.length - 1);
      expect(after.templates.length).toBe(before.templates.length - 1);
      expect(existsSync(run.stateFile)).toBe(false);
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

describeFirstSteps("typescript", ["Pulumi.yaml", "index.ts"], async (run) => {
  // Installed from the release folder's tarball, not linked to this clone.
  const installed = path.join(run.dir, "node_modules", "pulumi-compute");
  expect(realpathSync(installed).startsWith(REPO_ROOT)).toBe(false);
  expect((JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8")) as { version: string }).version).toBe(VERSION);
  await expectVolumeTemplateAndPod(run);
  const { sandboxes } = await live(run.emulator);
  expect(sandboxes).toHaveLength(1);
  expect(readFileSync(run.stateFile, "utf8")).toContain(`"id":"${sandboxes[0].id}"`);
});

/** The plugin the steps installed into the fresh Pulumi home: the archive's, which runs no code of this clone. */
function expectPluginFromArchive(run: FirstStepsRun): void {
  const plugin = path.join(run.env.PULUMI_HOME!, "plugins", `resource-compute-v${VERSION}`);
  const launcher = readFileSync(path.join(plugin, "pulumi-resource-compute"), "utf8");
  expect(launcher).not.toContain(REPO_ROOT);
  expect(existsSync(path.join(plugin, "node_modules", "pulumi-compute", "dist", "provider", "native", "main.js"))).toBe(true);
}

describeFirstSteps(
  "yaml",
  ["Pulumi.yaml"],
  async (run) => {
    expectPluginFromArchive(run);
    await expectVolumeTemplateAndPod(run);
    const { sandboxes } = await live(run.emulator);
    expect(sandboxes).toHaveLength(1);
    expect(readFileSync(run.stateFile, "utf8")).toContain(`"id":"${sandboxes[0].id}"`);
  },
  true,
);

describeFirstSteps("python", ["Pulumi.yaml", "__main__.py"], async (run) => {
  expectPluginFromArchive(run);
  // The program ran in the project's venv: the python of the shell's PATH has no pulumi, so a
  // host that ignored `virtualenv: venv` would have failed the steps.
  expect(existsSync(path.join(run.dir, "venv", "bin", "python"))).toBe(true);
  // python3 runs (status 0 for a plain print) and fails only the import: the failure is the
  // missing module, not a missing interpreter (a null status would also have passed `not 0`).
  expect(spawnSync("python3", ["-c", "print(1)"], { env: run.env, cwd: run.dir }).status).toBe(0);
  for (const python of ["python3", "python"]) {
    const tried = spawnSync(python, ["-c", "import pulumi"], { env: run.env, cwd: run.dir, encoding: "utf8" });
    if (tried.error) expect([python, (tried.error as NodeJS.ErrnoException).code]).toEqual([python, "ENOENT"]); // no such interpreter on PATH
    else expect([python, tried.status, tried.stderr]).toEqual([python, 1, expect.stringContaining("No module named 'pulumi'")]);
  }
  // The SDK in the venv is the release's wheel.
  const shown = spawnSync(path.join(run.dir, "venv", "bin", "pip"), ["show", "pulumi_compute"], { env: run.env, encoding: "utf8" }).stdout;
  expect(shown).toMatch(new RegExp(`^Version: ${VERSION.replace(/\./g, "\\.")}$`, "m"));
  await expectVolumeTemplateAndPod(run);
  const { sandboxes } = await live(run.emulator);
  expect(sandboxes).toHaveLength(1);
});

describeFirstSteps("go", ["Pulumi.yaml", "main.go"], async (run) => {
  expectPluginFromArchive(run);
  // The project's go.mod, as the steps made it: the compute SDK unpacked from the release into
  // the project, the Pulumi Go SDK at the engine's release.
  const goMod = readFileSync(path.join(run.dir, "go.mod"), "utf8");
  expect(goMod).toContain("example.com/pulumi-compute/sdk/go => ./compute-go");
  expect(goMod).toMatch(/github\.com\/pulumi\/pulumi\/sdk\/v3 v3\.248\.0/);
  await expectVolumeTemplateAndPod(run);
  const { sandboxes } = await live(run.emulator);
  expect(sandboxes).toHaveLength(1);
});
