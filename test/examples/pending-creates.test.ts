import { execFileSync } from "node:child_process";
import * as path from "node:path";

/**
 * examples/gitops/pending-creates.js: which pending creates an interrupted `up` left the GitOps
 * merge clears once its own `up` made their resources again, and which it keeps (what it would
 * forget could be billing outside the stack).
 */
const SCRIPT = path.resolve(__dirname, "..", "..", "examples", "gitops", "pending-creates.js");
const { settle } = require(SCRIPT) as { settle: (exported: unknown, since: string) => { exported: { deployment: { pending_operations: unknown[] } }; superseded: string[]; kept: string[] } };

const URN = (name: string) => `urn:pulumi:team::compute-example-gitops::pulumi-nodejs:dynamic/compute:Pod::${name}`;
const UP_STARTED = "2026-11-26T08:00:00.000Z";
const resource = (name: string, created?: string) => ({ urn: URN(name), type: "pulumi-nodejs:dynamic/compute:Pod", id: `id-${name}`, ...(created ? { created } : {}) });
const pending = (name: string, type = "creating") => ({ type, resource: { urn: URN(name), type: "pulumi-nodejs:dynamic/compute:Pod" } });

function exported(resources: unknown[], pendingOperations: unknown[]) {
  return { version: 3, deployment: { manifest: {}, resources, pending_operations: pendingOperations } };
}

describe("settling pending creates after the up that made them again", () => {
  it("clears a pending create whose resource this up created, and only that", () => {
    const state = exported(
      [resource("web", "2026-11-26T08:00:05.123456789Z"), resource("old", "2026-11-25T10:00:00Z")],
      [pending("web"), pending("old"), pending("gone"), pending("old", "updating")],
    );
    const result = settle(state, UP_STARTED);
    expect(result.superseded).toEqual([URN("web")]);
    // A replacement not made again (the old resource still held), a resource the program dropped:
    // kept, and reported, because what the interrupted run created may run outside the stack.
    expect(result.kept).toEqual([URN("old"), URN("gone")]);
    expect(result.exported.deployment.pending_operations).toEqual([pending("old"), pending("gone"), pending("old", "updating")]);
  });

  it("the command: exit 3 and nothing written when nothing is settled; the deployment without it otherwise", () => {
    const run = (state: unknown) => {
      try {
        return { code: 0, stdout: execFileSync("node", [SCRIPT, UP_STARTED], { input: JSON.stringify(state), encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] }) };
      } catch (error) {
        const failed = error as { status: number; stdout: string; stderr: string };
        return { code: failed.status, stdout: failed.stdout, stderr: failed.stderr };
      }
    };
    expect(run(exported([resource("web", "2026-11-25T10:00:00Z")], [pending("gone")]))).toMatchObject({ code: 3, stdout: "", stderr: expect.stringContaining(`${URN("gone")} still has a pending create`) });
    expect(run(exported([resource("web")], []))).toMatchObject({ code: 3, stdout: "" });
    const settled = run(exported([resource("web", "2026-11-26T08:00:01Z")], [pending("web")]));
    expect(settled.code).toBe(0);
    expect(JSON.parse(settled.stdout)).toEqual(exported([resource("web", "2026-11-26T08:00:01Z")], []));
  });

  it("refuses a start time it cannot read rather than settle everything", () => {
    expect(() => settle(exported([], [pending("web")]), "yesterday")).toThrow('not a time: "yesterday"');
  });
});
