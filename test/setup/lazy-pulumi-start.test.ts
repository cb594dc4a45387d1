/**
 * The deferred start of @pulumi/pulumi in the test run's processes (lazy-pulumi-start.js): it
 * finds what it defers in the installed release, defers it, and the paths that use it give the
 * same answers as without it.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as path from "node:path";
import { ROOT } from "../helpers/fixtures";

const SHIM = path.join(__dirname, "lazy-pulumi-start.js");
const PULUMI = path.join(ROOT, "node_modules", "@pulumi", "pulumi");

/** Runs in a fresh Node.js process (jest's own module loader bypasses Node's), with or without the shim. */
function probe(withShim: boolean): { atStart: string[]; serialized: string; afterSerialize: string[]; codePaths: string[]; afterCodePaths: string[] } {
  const script = `
    const loaded = () => ["@npmcli/arborist", "typescript/lib/typescript.js"].filter((m) => Object.keys(require.cache).some((k) => k.includes(m)));
    const pulumi = require("@pulumi/pulumi");
    const atStart = loaded();
    pulumi.runtime.serializeFunction(() => 6 * 7).then(async (serialized) => {
      const afterSerialize = loaded();
      const codePaths = [...(await pulumi.runtime.computeCodePaths()).keys()].sort();
      process.stdout.write(JSON.stringify({ atStart, serialized: serialized.text, afterSerialize, codePaths, afterCodePaths: loaded() }));
    });`;
  const env = { ...process.env, NODE_OPTIONS: withShim ? `--require ${JSON.stringify(SHIM)}` : "" };
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: ROOT, env, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
}

describe("the deferred start of @pulumi/pulumi", () => {
  it("finds the two modules it defers in the installed @pulumi/pulumi", () => {
    for (const file of ["runtime/closure/codePaths.js", "typescript-shim.js"]) expect([file, existsSync(path.join(PULUMI, file))]).toEqual([file, true]);
  });

  it("loads neither at start, each on its first use, and the answers are the same as without it", () => {
    const [plain, deferred] = [probe(false), probe(true)];
    expect(plain.atStart).toEqual(["@npmcli/arborist", "typescript/lib/typescript.js"]);
    expect(deferred.atStart).toEqual([]);
    expect(deferred.afterSerialize).toEqual(["typescript/lib/typescript.js"]);
    expect(deferred.afterCodePaths).toEqual(["@npmcli/arborist", "typescript/lib/typescript.js"]);
    expect(deferred.serialized).toBe(plain.serialized);
    expect(deferred.codePaths.length).toBeGreaterThan(0);
    expect(deferred.codePaths).toEqual(plain.codePaths);
  });

  it("is in the environment of this run's processes (jest's global set-up)", () => {
    expect(process.env.NODE_OPTIONS).toContain(`--require ${JSON.stringify(SHIM)}`);
  });
});
