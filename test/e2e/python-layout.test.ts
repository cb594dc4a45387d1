import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { createE2EStack, noIds, deactivateVirtualenvs, PYTHON_VENV, type E2EStack } from "./harness";

jest.setTimeout(10 * 60_000);

const PROGRAM = path.join(__dirname, "programs", "python-venv", "__main__.py");

/** A Pulumi.yaml of a Python project: its runtime options, and `main:` if given. */
function pulumiYaml(options?: Record<string, string>, main?: string): string {
  const lines = ["name: compute-python-layout", "runtime:", "  name: python"];
  if (options) lines.push("  options:", ...Object.entries(options).map(([key, value]) => `    ${key}: ${value}`));
  if (main) lines.push(`main: ${main}`);
  return `${lines.join("\n")}\n`;
}

const purelib = (python: string) => execFileSync(python, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], { encoding: "utf8" }).trim();

/**
 * A virtualenv of the project's own, made by the standard library (`python -m venv`), whose
 * packages are the set-up's: a .pth file in its site-packages adds .venv's, where
 * scripts/setup-python.sh installed pulumi and pulumi_compute. Installing them again with pip
 * would take some ten seconds of a 2-core CI machine for nothing this suite checks (the README
 * suite does install them, word for word); this takes a fraction of one. `--without-pip`: the
 * host's `python -m pip list` (which packages need plugins) finds pip in .venv's packages too.
 */
function makeVirtualenv(venv: string): void {
  const setupPython = path.join(PYTHON_VENV, "bin", "python");
  execFileSync(setupPython, ["-m", "venv", "--without-pip", venv]);
  writeFileSync(path.join(purelib(path.join(venv, "bin", "python")), "compute-setup-venv.pth"), `${purelib(setupPython)}\n`);
}

/**
 * A Python project laid out as `pulumi new python` lays it out: `runtime.options.virtualenv` in
 * its Pulumi.yaml, the program's packages in that virtualenv only, and nothing activated. The
 * engine starts our launcher as the Python host (scripts/go/language-host/main.go), which hands
 * the option to the sdk/v3 v3.68 host as that host's own engine did. First, the proof that the
 * option matters: the `python` on this PATH cannot import pulumi, so a host that ignored the
 * option would fail every case below.
 */
describe("a Python project that names its virtualenv in Pulumi.yaml, with nothing activated", () => {
  let dir: string;
  let venv: string;
  let e2e: E2EStack;
  const write = (text: string) => writeFileSync(path.join(dir, "Pulumi.yaml"), text);

  beforeAll(async () => {
    deactivateVirtualenvs();
    // The real path: the program reports its sys.prefix, which Python gives resolved.
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), "compute-python-layout-")));
    cpSync(PROGRAM, path.join(dir, "__main__.py"));
    mkdirSync(path.join(dir, "src"));
    cpSync(PROGRAM, path.join(dir, "src", "__main__.py"));
    venv = path.join(dir, "venv");
    makeVirtualenv(venv);
    write(pulumiYaml({ virtualenv: "venv" }));
    e2e = await createE2EStack("python-layout", { program: dir });
  });
  afterAll(async () => {
    await e2e?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("without the option, the program runs on the python of PATH, which has no pulumi", async () => {
    write(pulumiYaml());
    await expect(e2e.stack.preview()).rejects.toThrow(/No module named 'pulumi'/);
  });

  it("virtualenv: venv (relative to the project): up runs the program in it and creates the sandbox", async () => {
    write(pulumiYaml({ virtualenv: "venv" }));
    let output = "";
    const result = await e2e.stack.up({ onOutput: (text) => (output += text) });
    expect(result.summary.resourceChanges).toEqual({ create: 2 });
    expect(result.outputs.prefix.value).toBe(venv);
    expect(result.outputs.sandboxState.value).toBe("RUNNING");
    expect(await e2e.liveIds()).toEqual({ ...noIds(), sandbox: [result.outputs.sandboxId.value] });
    expect(output).not.toMatch(/from \$PATH/);
  });

  it("with main: src/, the host starts in src/ and the virtualenv is still the project folder's", async () => {
    write(pulumiYaml({ virtualenv: "venv" }, "src/"));
    expect((await e2e.stack.preview()).changeSummary).toEqual({ same: 2 });
    // Resolved against src/, the host would have made an empty src/venv, and the program failed.
    expect(existsSync(path.join(dir, "src", "venv"))).toBe(false);
  });

  it("an absolute virtualenv, with toolchain: pip", async () => {
    write(pulumiYaml({ toolchain: "pip", virtualenv: venv }));
    expect((await e2e.stack.preview()).changeSummary).toEqual({ same: 2 });
  });

  it.each([
    ["toolchain: poetry", { toolchain: "poetry", virtualenv: "venv" }, /runtime\.options\.toolchain "poetry" in \S+Pulumi\.yaml is not supported by this Python language host/],
    ["typechecker: mypy", { typechecker: "mypy", virtualenv: "venv" }, /runtime\.options\.typechecker in \S+Pulumi\.yaml is not supported by this Python language host/],
  ])("%s fails at start, in one line naming the option", async (_what, options, message) => {
    write(pulumiYaml(options));
    await expect(e2e.stack.preview()).rejects.toThrow(message);
  });

  it("destroy leaves nothing in the emulator", async () => {
    write(pulumiYaml({ virtualenv: "venv" }));
    await e2e.stack.destroy();
    expect(await e2e.liveIds()).toEqual(noIds());
  });
});
