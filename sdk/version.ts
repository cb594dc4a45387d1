/**
 * This package's name and version, from its own package.json: the one place they are read, for
 * the SDK's and the CLI's user agents, `compute --version`, the native plugin's version and
 * schema, and the build string the dynamic provider records. The manifest is found by walking
 * up from this module, because the code runs from `dist/sdk/` and, in the tests, from `sdk/`.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";

const NAME = "pulumi-compute";

let manifest: { name: string; version: string } | undefined;

function readManifest(): { name: string; version: string } {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    try {
      const found = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (found.name === NAME && found.version) return { name: NAME, version: found.version };
    } catch {
      // no package.json here (or not ours): keep walking up
    }
    // A copy bundled without its manifest still runs; its version is unknown.
    if (path.dirname(dir) === dir) return { name: NAME, version: "dev" };
  }
}

/** The package version (`0.1.0`), read once; `dev` for a copy without its package.json. */
export function packageVersion(): string {
  return (manifest ??= readManifest()).version;
}

/** `name@version` of this package (`pulumi-compute@0.1.0`): what a build of it is called. */
export function packageBuild(): string {
  return `${NAME}@${packageVersion()}`;
}
