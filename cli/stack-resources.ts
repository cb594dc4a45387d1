/**
 * What a stack holds of this package, for `compute cost --stack`: its resources now, from the
 * state (`pulumi stack export`), and those it destroyed within a window, from the backend's
 * history. Billing records carry only ids, and a destroyed resource's owner mark went with it,
 * so the state is the one place that ties an id to a stack.
 *
 * The history is each update's checkpoint that a self-managed backend keeps
 * (`.pulumi/history/<project>/<stack>/<stack>-<unix nanoseconds>.checkpoint.json`, gzipped
 * when the backend is). Only a `file://` backend's can be read here; for any other, the
 * destroyed resources are not listed, and the caller says so. `pulumi stack export --version`
 * would serve Pulumi Cloud, but a self-managed backend refuses it (Pulumi 3.248: "does not
 * provide the ability to export previous deployments").
 *
 * Only ids, names, types and the rate a resource recorded are read; the state's secrets stay
 * encrypted and are never printed. A resource the stack only reads (`get`, `external` in the
 * state) is not the stack's, and not listed.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { kindOfToken } from "../contract/tokens";
import { CliFailure } from "./errors";

export interface StackResource {
  /** The resource's type name (`Pod`). */
  kind: string;
  /** Its name in the program (the last part of its URN). */
  name: string;
  id: string;
  /** The rate it recorded (`costPerHour`), if it records one. */
  costPerHour: number | null;
  /** `state`: in the stack now; `destroyed`: in a checkpoint of the window, no more in the stack. */
  source: "state" | "destroyed";
  /** For a destroyed one: the time of the last checkpoint that held it (ISO 8601). */
  lastSeen?: string;
}

export interface StackResources {
  /** `project/stack`. */
  stack: string;
  resources: StackResource[];
  /** Whether the destroyed ones could be looked for, and if not, why. */
  history: { read: true; checkpoints: number } | { read: false; why: string };
}

interface StateResource {
  urn?: string;
  type?: string;
  id?: string;
  outputs?: Record<string, unknown>;
  custom?: boolean;
  /** Read into the stack (`get`), not made by it: what it bills is not the stack's. */
  external?: boolean;
}

/** Runs the Pulumi CLI (from PATH) and returns its standard output; its error, in one line, otherwise. */
function pulumi(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("pulumi", args, { cwd, maxBuffer: 512 * 1024 * 1024, env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" } }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return reject(new CliFailure("`compute cost --stack` reads the stack with the Pulumi CLI: `pulumi` is not on PATH"));
      const said = stderr.trim().split("\n").filter(Boolean).pop() ?? error.message;
      reject(new CliFailure(`pulumi ${args.slice(0, 2).join(" ")} failed: ${said}`));
    });
  });
}

/** This package's resources of a deployment, with their kinds. */
function packageResources(resources: StateResource[]): Array<Omit<StackResource, "source">> {
  const found: Array<Omit<StackResource, "source">> = [];
  for (const resource of resources) {
    const kind = resource.type ? kindOfToken(resource.type) : undefined;
    if (!kind || !resource.id || !resource.urn || resource.external) continue;
    const rate = resource.outputs?.costPerHour;
    found.push({ kind, name: resource.urn.slice(resource.urn.lastIndexOf("::") + 2), id: resource.id, costPerHour: typeof rate === "number" ? rate : null });
  }
  return found;
}

/** `project` and `stack` from the deployment's root stack resource (`urn:pulumi:<stack>::<project>::pulumi:pulumi:Stack::…`). */
function stackOf(resources: StateResource[]): { project: string; stack: string } | undefined {
  const root = resources.find((r) => r.type === "pulumi:pulumi:Stack")?.urn;
  const match = root ? /^urn:pulumi:([^:]+)::([^:]+)::/.exec(root) : null;
  return match ? { stack: match[1]!, project: match[2]! } : undefined;
}

/** The folder of a `file://` backend URL; `file://~` is the user's home, as the engine reads it. */
export function backendDir(url: string): string {
  const rest = url.slice("file://".length);
  if (rest === "~" || rest.startsWith("~/")) return path.join(homedir(), rest.slice(1));
  return fileURLToPath(url);
}

/** The update checkpoints a `file://` backend keeps for the stack, oldest first, with their times (ms). */
function checkpointFiles(backendDir: string, project: string, stack: string): Array<{ file: string; at: number }> {
  // Project-scoped layout (the default since Pulumi 3.61), then the older one.
  for (const dir of [path.join(backendDir, ".pulumi", "history", project, stack), path.join(backendDir, ".pulumi", "history", stack)]) {
    if (!existsSync(dir)) continue;
    const pattern = new RegExp(`^${stack.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-(\\d+)\\.checkpoint\\.json(\\.gz)?$`);
    return readdirSync(dir)
      .map((name) => ({ name, match: pattern.exec(name) }))
      .filter((entry) => entry.match)
      .map((entry) => ({ file: path.join(dir, entry.name), at: Math.floor(Number(entry.match![1]) / 1e6) }))
      .sort((a, b) => a.at - b.at);
  }
  return [];
}

function readCheckpoint(file: string): StateResource[] {
  const raw = readFileSync(file);
  const text = file.endsWith(".gz") ? gunzipSync(raw).toString("utf8") : raw.toString("utf8");
  const parsed = JSON.parse(text) as { checkpoint?: { latest?: { resources?: StateResource[] } } };
  return parsed.checkpoint?.latest?.resources ?? [];
}

/**
 * The stack's resources of this package now, and those it destroyed since `since` (ms): every
 * checkpoint from the last one before `since` on is read, and an id none of the current
 * resources has is a destroyed one.
 */
export async function stackResources(options: { stack: string; cwd: string; since: number }): Promise<StackResources> {
  const exported = JSON.parse(await pulumi(["stack", "export", "--stack", options.stack], options.cwd)) as { deployment?: { resources?: StateResource[] } };
  const current = exported.deployment?.resources ?? [];
  const now = packageResources(current).map((r): StackResource => ({ ...r, source: "state" }));
  const identity = stackOf(current);
  const label = identity ? `${identity.project}/${identity.stack}` : options.stack;
  if (!identity) return { stack: label, resources: now, history: { read: false, why: "the stack has no root resource to name its project (it has never been deployed)" } };

  const whoami = JSON.parse(await pulumi(["whoami", "--json"], options.cwd)) as { url?: string };
  const url = whoami.url ?? "";
  if (!url.startsWith("file://")) {
    const scheme = url.split(":")[0] || "this";
    return { stack: label, resources: now, history: { read: false, why: `the ${scheme} backend's history cannot be read here (only a file:// backend's can)` } };
  }
  const files = checkpointFiles(backendDir(url), identity.project, identity.stack);
  const firstInWindow = files.findIndex((f) => f.at >= options.since);
  const read = firstInWindow === -1 ? files.slice(-1) : files.slice(Math.max(0, firstInWindow - 1));
  const known = new Set(now.map((r) => r.id));
  const destroyed = new Map<string, StackResource>();
  for (const { file, at } of read) {
    for (const resource of packageResources(readCheckpoint(file))) {
      if (known.has(resource.id)) continue;
      destroyed.set(resource.id, { ...resource, source: "destroyed", lastSeen: new Date(at).toISOString() });
    }
  }
  return { stack: label, resources: [...now, ...destroyed.values()], history: { read: true, checkpoints: read.length } };
}
