/**
 * What a test file that starts processes leaves behind: temporary directories, removed, and
 * child processes, killed if still running, after its last test.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function useScratch(prefix: string) {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });
  return {
    /** A new empty directory under the system's temporary one. */
    tempDir(): string {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    /** Kills `child` after the last test unless it has exited by then. */
    track<C extends ChildProcess>(child: C): C {
      children.push(child);
      return child;
    },
  };
}
