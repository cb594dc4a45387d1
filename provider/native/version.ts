/**
 * This package's version, from its package.json, found by walking up from this module: the
 * plugin runs from `dist/provider/native/` and the tests from the sources, at different depths.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";

export function packageVersion(from: string = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (manifest.name === "pulumi-compute" && manifest.version) return manifest.version;
    } catch {
      // not here: keep walking up
    }
    if (path.dirname(dir) === dir) throw new Error(`package.json of pulumi-compute not found above ${from}`);
  }
}
