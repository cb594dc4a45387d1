import { existsSync } from "node:fs";
import * as path from "node:path";

/**
 * The clone's root, found from this file's folder whether it runs from source (scripts/lib, as
 * the suites load it) or built (dist/scripts/lib, as `npm run bench` runs it).
 */
export const REPO_ROOT = findUp(__dirname, "package.json");

function findUp(from: string, file: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, file))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no ${file} above ${from}`);
  }
}
