/**
 * The Pulumi engine release that set-up builds and the suites and benchmarks run, for
 * TypeScript. Stated once, in package.json: the exact version of the `@pulumi/pulumi` development
 * dependency (the Node.js SDK the programs run on), because the engine follows that SDK's
 * release. The shell reads it by the same rule (scripts/lib/engine-env.sh,
 * compute_engine_version), PULUMI_VERSION included.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "./root";

/** PULUMI_VERSION when set (trying another release), else package.json's `@pulumi/pulumi` development dependency. */
export function engineVersion(): string {
  if (process.env.PULUMI_VERSION) return process.env.PULUMI_VERSION;
  const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { devDependencies?: Record<string, string> };
  const version = pkg.devDependencies?.["@pulumi/pulumi"] ?? "";
  if (!/^\d+\.\d+\.\d+$/.test(version)) {
    throw new Error(`package.json: the @pulumi/pulumi development dependency must be an exact release (x.y.z), the engine is built at it; found "${version}"`);
  }
  return version;
}
