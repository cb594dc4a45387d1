/**
 * What the cost suites need on top of harness.ts (which installs the policy pack's launcher into
 * each stack's Pulumi home, as set-up does for a user): a preview with the cost policy pack
 * through the engine's CLI, the scripts of examples/gitops run with
 * the stack's environment, and the API requests that changed something.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import type { LocalWorkspace } from "@pulumi/pulumi/automation";
import { REPO_ROOT, type E2EStack } from "./harness";

export const POLICY_PACK = path.join(REPO_ROOT, "policy");

/** The environment `pulumi` runs in for this stack (backend, home, passphrase, PATH). */
export function stackEnv(e2e: E2EStack): NodeJS.ProcessEnv {
  const workspace = e2e.stack.workspace as LocalWorkspace;
  return { ...process.env, ...workspace.envVars, PULUMI_HOME: workspace.pulumiHome };
}

/** A policy pack configuration file (what `--policy-pack-config` takes). */
export function policyConfigFile(config: object): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "compute-policy-config-")), "policy-config.json");
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/** `pulumi preview --policy-pack policy [--policy-pack-config <file>]`: its exit code and its whole output. */
export async function previewWithPolicy(e2e: E2EStack, config?: object): Promise<{ code: number; output: string }> {
  const args = ["preview", "--policy-pack", POLICY_PACK];
  if (config) args.push("--policy-pack-config", policyConfigFile(config));
  const run = await e2e.cli(args);
  return { code: run.code, output: `${run.stdout}${run.stderr}` };
}

/** Runs `examples/gitops/<script> <argument> [more…]` as CI would, with the stack's environment. */
export function runGitopsScript(e2e: E2EStack, script: string, argument: string, more: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile("bash", [path.join(REPO_ROOT, "examples", "gitops", script), argument, ...more], { env: stackEnv(e2e), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : undefined) : 0;
      if (code === undefined) reject(error);
      else resolve({ code, stdout, stderr });
    });
  });
}

/** The API requests since the log was last cleared that were not reads. */
export async function mutations(e2e: Pick<E2EStack, "control">): Promise<string[]> {
  return (await e2e.control.requests()).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
}
