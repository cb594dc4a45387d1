/**
 * Processes of a run the end-to-end suites (test/e2e/interrupted.test.ts) and the benchmarks
 * (bench/scenarios/fast-path.ts) kill in the middle, stated once so that neither imports from
 * the other.
 */
import { execFileSync } from "node:child_process";

/**
 * The CLI and every process below it. The engine starts its language host and plugins in
 * process groups of their own, so a group kill would miss them: walk the parent links.
 */
export function processTree(root: number): number[] {
  const parents = execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  return tree;
}
