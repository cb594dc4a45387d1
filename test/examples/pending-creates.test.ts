import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";

/**
 * examples/gitops/pending-creates.js: which pending creates an interrupted `up` left the GitOps
 * merge clears once its own `up` made their resources again, and which it keeps (what it would
 * forget could be billing outside the stack).
 */
const SCRIPT = path.resolve(__dirname, "..", "..", "examples", "gitops", "pending-creates.js");
type Settled = { exported: { deployment: { pending_operations: unknown[] } }; settled: string[]; kept: string[]; unknown: string[] };
const { settle } = require(SCRIPT) as { settle: (exported: unknown, since: string, live: unknown) => Settled };

const POD = "pulumi-nodejs:dynamic/compute:Pod";
const URN = (name: string, type = POD) => `urn:pulumi:team::compute-example-gitops::${type}::${name}`;
const UP_STARTED = "2026-11-26T08:00:00.000Z";
const resource = (name: string, created?: string, type = POD) => ({ urn: URN(name, type), type, id: `id-${name}`, ...(created ? { created } : {}) });
const pending = (name: string, opType = "creating", type = POD) => ({ type: opType, resource: { urn: URN(name, type), type } });
/** What `compute ps --stack … --json` prints, for these ids. */
const live = (...ids: string[]) => ({ pods: ids.map((id) => ({ kind: "pod", id })), clusters: [], sandboxes: [], volumes: [], endpoints: [], total: {} });

function exported(resources: unknown[], pendingOperations: unknown[]) {
  return { version: 3, deployment: { manifest: {}, resources, pending_operations: pendingOperations } };
}

describe("settling pending creates after the up that made them again", () => {
  it("clears a pending create whose resource this up created, and only that", () => {
    const state = exported(
      [resource("web", "2026-11-26T08:00:05.123456789Z"), resource("old", "2026-11-25T10:00:00Z")],
      [pending("web"), pending("old"), pending("gone"), pending("old", "updating")],
    );
    const result = settle(state, UP_STARTED, live("id-web", "id-old"));
    expect(result.settled).toEqual([URN("web")]);
    // A replacement not made again (the old resource still held), a resource the program dropped:
    // kept, and reported, because what the interrupted run created may run outside the stack.
    expect(result.kept).toEqual([URN("old"), URN("gone")]);
    expect(result.exported.deployment.pending_operations).toEqual([pending("old"), pending("gone"), pending("old", "updating")]);
  });

  it("keeps every pending create while the service holds something of the stack that the state does not", () => {
    // A stray volume (kept, never deleted), a stray whose delete failed, marks another runner derived.
    const state = exported([resource("web", "2026-11-26T08:00:05Z")], [pending("web")]);
    const result = settle(state, UP_STARTED, { ...live("id-web"), volumes: [{ kind: "volume", id: "vol-stray" }] });
    expect(result).toMatchObject({ settled: [], kept: [URN("web")], unknown: ["vol-stray"] });
  });

  it("keeps another provider's pending create: its resource is made again, not adopted", () => {
    const RANDOM = "random:index/randomPet:RandomPet";
    const state = exported([resource("pet", "2026-11-26T08:00:05Z", RANDOM)], [pending("pet", "creating", RANDOM)]);
    expect(settle(state, UP_STARTED, live()).settled).toEqual([]);
    // The native plugin's resources are this provider's too.
    const native = "compute:index:Sandbox";
    expect(settle(exported([resource("s", "2026-11-26T08:00:05Z", native)], [pending("s", "creating", native)]), UP_STARTED, live("id-s")).settled).toEqual([URN("s", native)]);
  });

  it("the command: exit 3 and nothing written when nothing is settled; the deployment without it otherwise", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "pending-creates-"));
    const run = (state: unknown, ids: string[]) => {
      const liveFile = path.join(dir, "live.json");
      writeFileSync(liveFile, JSON.stringify(live(...ids)));
      try {
        return { code: 0, stdout: execFileSync("node", [SCRIPT, UP_STARTED, liveFile], { input: JSON.stringify(state), encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] }) };
      } catch (error) {
        const failed = error as { status: number; stdout: string; stderr: string };
        return { code: failed.status, stdout: failed.stdout, stderr: failed.stderr };
      }
    };
    expect(run(exported([resource("web", "2026-11-25T10:00:00Z")], [pending("gone")]), ["id-web"])).toMatchObject({ code: 3, stdout: "", stderr: expect.stringContaining(`${URN("gone")} still has a pending create`) });
    expect(run(exported([resource("web")], []), ["id-web"])).toMatchObject({ code: 3, stdout: "" });
    expect(run(exported([resource("web", "2026-11-26T08:00:01Z")], [pending("web")]), ["id-web", "stray"])).toMatchObject({ code: 3, stderr: expect.stringContaining("the service holds stray with this stack's owner mark") });
    const settled = run(exported([resource("web", "2026-11-26T08:00:01Z")], [pending("web")]), ["id-web"]);
    expect(settled.code).toBe(0);
    expect(JSON.parse(settled.stdout)).toEqual(exported([resource("web", "2026-11-26T08:00:01Z")], []));
  });

  it("--list: the URNs of the state's pending creates, and of nothing else", () => {
    const state = exported([resource("web")], [pending("web"), pending("old", "updating"), pending("gone")]);
    const listed = execFileSync("node", [SCRIPT, "--list"], { input: JSON.stringify(state), encoding: "utf8" });
    expect(listed).toBe(`${URN("web")}\n${URN("gone")}\n`);
  });

  it("refuses a start time it cannot read rather than settle everything", () => {
    expect(() => settle(exported([], [pending("web")]), "yesterday", live())).toThrow('not a time: "yesterday"');
  });
});
