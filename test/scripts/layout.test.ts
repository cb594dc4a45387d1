/**
 * scripts/ as one system (issue 38): scripts/README.md names every script and Go program, the Go
 * programs sit in scripts/go/, and the Pulumi engine's release is stated once (package.json's
 * `@pulumi/pulumi` development dependency), which the shell and TypeScript read by the same rule
 * and the SDK generator's go.mod pins. No engine, no network.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { engineVersion } from "../../scripts/lib/engine-version";

const ROOT = path.resolve(__dirname, "../..");
const SCRIPTS = path.join(ROOT, "scripts");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");
const files = (dir: string) => readdirSync(path.join(ROOT, dir)).filter((name) => statSync(path.join(ROOT, dir, name)).isFile());
// PULUMI_VERSION overrides the release in both readers (to try another one); the checks are
// about the release as committed. Jest gives each test file its own copy of process.env (passed
// to the shell explicitly below: child_process reads the real one).
delete process.env.PULUMI_VERSION;

describe("scripts/", () => {
  it("README.md names every script, every file of lib/ and every Go program of go/", () => {
    const readme = read("scripts/README.md");
    const named = [
      ...files("scripts").filter((name) => name !== "README.md"),
      ...files("scripts/lib").map((name) => `lib/${name}`),
      ...readdirSync(path.join(SCRIPTS, "go")).map((name) => `go/${name}/`),
    ];
    expect(named.filter((name) => !readme.includes(`\`${name.replace(/\/$/, "")}`))).toEqual([]);
  });

  it("README.md names nothing that is not there", () => {
    // Each table's first column: a script, `lib/<file>` or `go/<program>/`.
    const entries = [...read("scripts/README.md").matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);
    expect(entries.length).toBeGreaterThan(10);
    expect(entries.filter((entry) => !existsSync(path.join(SCRIPTS, entry)))).toEqual([]);
  });

  it("keeps its Go programs in go/, nowhere else", () => {
    const stray: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(path.join(SCRIPTS, dir), { withFileTypes: true })) {
        const rel = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (rel !== "go") walk(rel);
        } else if (/\.go$|^go\.(mod|sum)$/.test(entry.name)) stray.push(rel);
      }
    };
    walk("");
    expect(stray).toEqual([]);
  });
});

describe("the engine's release, stated once", () => {
  it("is package.json's @pulumi/pulumi development dependency, for TypeScript and the shell alike", () => {
    const pkg = JSON.parse(read("package.json")) as { devDependencies: Record<string, string> };
    expect(engineVersion()).toBe(pkg.devDependencies["@pulumi/pulumi"]);
    const shell = execFileSync("bash", ["-c", "source scripts/lib/engine-env.sh && compute_engine_version && compute_engine_root"], { cwd: ROOT, env: process.env, encoding: "utf8" });
    const [version, root] = shell.trim().split("\n");
    expect(version).toBe(engineVersion());
    expect(path.basename(root!)).toBe(`pulumi-v${engineVersion()}`);
  });

  it("is the release the SDK generator is built at (scripts/go/sdk-gen/go.mod)", () => {
    const gomod = read("scripts/go/sdk-gen/go.mod");
    for (const module of ["pkg/v3", "sdk/v3"]) expect(gomod).toContain(`github.com/pulumi/pulumi/${module} v${engineVersion()}\n`);
  });

  it("is written nowhere else in the code of scripts/, bench/ and test/ (comments may cite it)", () => {
    // Recorded data (recordings, fixtures, results), and go.mod/go.sum, whose pins are checked above.
    const skipped = /^(test\/upgrades\/recordings|test\/fixtures|bench\/results)(\/|$)|(^|\/)(go\.mod|go\.sum|node_modules)$/;
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const rel = path.posix.join(dir, entry.name);
        if (skipped.test(rel)) continue;
        if (entry.isDirectory()) walk(rel);
        else if (/\.(sh|ts|js|go|json)$/.test(entry.name)) {
          read(rel)
            .split("\n")
            .forEach((line, i) => {
              const code = line.trim();
              if (!/^(#|\/\/|\*|\/\*)/.test(code) && code.includes(engineVersion())) found.push(`${rel}:${i + 1}: ${code}`);
            });
        }
      }
    };
    for (const dir of ["scripts", "bench", "test"]) walk(dir);
    expect(found).toEqual([]);
  });
});
