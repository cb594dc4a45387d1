/**
 * The Pulumi home of a jest run (jest.config.js's global set-up and teardown): a folder
 * .test-home/pulumi-<pid> under the clone (ignored by git), this clone's plugins installed into
 * it once, before any suite, and removed after the last suite. Every worker gets it as
 * PULUMI_HOME and COMPUTE_PULUMI_HOME: the end-to-end suites run every stack with it
 * (scripts/lib/engine.ts), each stack with its own state backend, and code that looks for the
 * user's Pulumi home in-process (the owner mark reads the backend of the current login) finds
 * this one. Nothing of the run reads or writes the user's ~/.pulumi.
 *
 * One home per run, not one per clone: a second jest run in the same clone at the same time
 * installs into its own, never under the engine of the first. Homes of runs that ended without
 * their teardown (killed) are removed by the next run.
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { installPlugins, REPO_ROOT } from "../../scripts/lib/engine";

export const TEST_HOME = join(REPO_ROOT, ".test-home");
const PREFIX = "pulumi-";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export async function installPulumiHome(): Promise<void> {
  mkdirSync(TEST_HOME, { recursive: true });
  for (const entry of readdirSync(TEST_HOME)) {
    const pid = Number(entry.slice(PREFIX.length));
    if (entry.startsWith(PREFIX) && Number.isInteger(pid) && pid !== process.pid && !alive(pid)) rmSync(join(TEST_HOME, entry), { recursive: true, force: true });
  }
  const home = join(TEST_HOME, `${PREFIX}${process.pid}`);
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home);
  // Without the engine (a bare `npx jest test/sdk`) there is nothing to install; the end-to-end
  // suites then say what to run.
  if (process.env.COMPUTE_PULUMI_ROOT) await installPlugins(home);
  process.env.PULUMI_HOME = home;
  process.env.COMPUTE_PULUMI_HOME = home;
}

export function removePulumiHome(): void {
  const home = process.env.COMPUTE_PULUMI_HOME;
  if (home && home.startsWith(`${TEST_HOME}/`)) rmSync(home, { recursive: true, force: true });
}
