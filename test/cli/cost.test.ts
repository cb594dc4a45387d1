/**
 * `compute cost` against the emulator on a frozen clock: the account's spend by family, and a
 * stack's resources (read with the real `pulumi stack export` from a file backend the test
 * fills with `pulumi stack import`) with what each cost, the kinds no billing route covers said
 * as such. The figures expected are the service's own billing answers, read over HTTP here.
 * (A stack's destroyed resources, read from the backend's history, need real updates: that case
 * runs through the engine, test/e2e/changes.test.ts.)
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { GPU } from "../helpers/fixtures";
import { runCli, tableRows, useEmulator } from "./helpers";

const T0 = "2030-05-01T08:00:00Z";
const HOUR = 3_600_000;
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const emu = useEmulator();

async function billed(route: string, query: string): Promise<any> {
  const answer = await fetch(`${emu.url}/v2/billing${route}?${query}`, { headers: { Authorization: `Bearer ${emu.apiKey}` } });
  expect(answer.status).toBe(200);
  return answer.json();
}

const pulumiRoot = process.env.COMPUTE_PULUMI_ROOT;

describe("compute cost", () => {
  let podId: string;
  let volumeId: string;
  beforeAll(async () => {
    await emu.control.reset();
    await emu.control.freezeClock(T0);
    const headers = { Authorization: `Bearer ${emu.apiKey}`, "Content-Type": "application/json" };
    const pod = await fetch(`${emu.url}/v2/pods`, { method: "POST", headers, body: JSON.stringify({ name: "trainer", image: "pytorch", gpu: { id: GPU.rtx4090 } }) });
    podId = ((await pod.json()) as { id: string }).id;
    const volume = await fetch(`${emu.url}/v2/network-volumes`, { method: "POST", headers, body: JSON.stringify({ name: "data", dataCenter: "US-TX-3", size: 100 }) });
    volumeId = ((await volume.json()) as { id: string }).id;
    await emu.control.advance(3 * HOUR);
  });

  it("without --stack: the account's spend by family and its total, as the service's billing answers it", async () => {
    const result = await emu.run(["cost", "--from", T0, "--to", at(3 * HOUR), "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    const truth = await billed("", `startTime=${T0}&endTime=${at(3 * HOUR)}&bucketSize=hour`);
    expect(report.total).toBeCloseTo(truth.metadata.totals.totalAmount, 6);
    const family = (name: string) => report.families.find((f: { family: string }) => f.family === name)?.actual;
    expect(family("pods: GPU")).toBeCloseTo(truth.metadata.totals.podGpuAmount, 6);
    expect(family("storage: standard")).toBeCloseTo(truth.metadata.totals.storageStandardAmount, 6);
    expect(family("pods: GPU")).toBeGreaterThan(0);
    expect(report.notes).toEqual(expect.arrayContaining([expect.stringMatching(/lag/)]));

    const table = await emu.run(["cost", "--from", T0, "--to", at(3 * HOUR)]);
    expect(table.code).toBe(0);
    expect(tableRows(table.stdout)[0]).toEqual(["FAMILY", "ACTUAL"]);
    expect(table.stdout).toMatch(/^Total: \$\d+\.\d+ from 2030-05-01T08:00:00\.000Z to 2030-05-01T11:00:00\.000Z$/m);
    expect(table.stderr).toMatch(/Billing may lag/);
  });

  it("a window it cannot take is a usage error before any request", async () => {
    await emu.control.clearRequests();
    const backwards = await emu.run(["cost", "--from", at(HOUR), "--to", T0]);
    expect(backwards.code).toBe(2);
    expect(backwards.stderr).toMatch(/--from must be before --to/);
    const both = await emu.run(["cost", "--since", "7d", "--from", T0]);
    expect(both.code).toBe(2);
    const zero = await emu.run(["cost", "--since", "0d"]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/Expected a duration such as 7d/);
    const ages = await emu.run(["cost", "--since", "100000d"]);
    expect(ages.code).toBe(2);
    expect(ages.stderr).toMatch(/--since .*Expected at most 3650d/);
    expect(await emu.control.requests()).toEqual([]);
  });

  it("a date-time without an offset is UTC, whatever the machine's time zone", async () => {
    const result = await runCli(["cost", "--from", "2030-05-01T08:00:00", "--to", "2030-05-01 11:00", "--json"], { ...emu.env(), TZ: "Asia/Tokyo" });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).window).toMatchObject({ startTime: "2030-05-01T08:00:00.000Z", endTime: "2030-05-01T11:00:00.000Z" });
  });

  describe("--stack", () => {
    let dir: string;
    let env: Record<string, string>;
    beforeAll(async () => {
      if (!pulumiRoot) throw new Error("COMPUTE_PULUMI_ROOT is not set: run the suite through `npm test` (scripts/test.sh installs the engine)");
      dir = mkdtempSync(path.join(tmpdir(), "compute-cost-"));
      writeFileSync(path.join(dir, "Pulumi.yaml"), "name: costs\nruntime: yaml\n");
      env = {
        PATH: `${path.join(pulumiRoot, "bin")}${path.delimiter}${process.env.PATH}`,
        PULUMI_BACKEND_URL: `file://${path.join(dir, "state")}`,
        PULUMI_CONFIG_PASSPHRASE: "cost",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        PULUMI_HOME: path.join(dir, "home"),
      };
      const run = (args: string[]) => promisify(execFile)(path.join(pulumiRoot, "bin", "pulumi"), args, { cwd: dir, env: { ...process.env, ...env } });
      mkdirSync(path.join(dir, "state"));
      await run(["stack", "init", "dev"]);
      const urn = (type: string, name: string) => `urn:pulumi:dev::costs::${type}::${name}`;
      const deployment = {
        version: 3,
        deployment: {
          resources: [
            { urn: urn("pulumi:pulumi:Stack", "costs-dev"), custom: false, type: "pulumi:pulumi:Stack" },
            { urn: urn("compute:index:Pod", "trainer"), custom: true, id: podId, type: "compute:index:Pod", outputs: { costPerHour: 0.69 } },
            { urn: urn("pulumi-nodejs:dynamic/compute:NetworkVolume", "data"), custom: true, id: volumeId, type: "pulumi-nodejs:dynamic/compute:NetworkVolume", outputs: {} },
            { urn: urn("compute:index:Sandbox", "scratch"), custom: true, id: "sb-not-billed", type: "compute:index:Sandbox", outputs: { costPerHour: 0.1 } },
            { urn: urn("compute:index:Template", "base"), custom: true, id: "tpl-free", type: "compute:index:Template", outputs: {} },
          ],
        },
      };
      writeFileSync(path.join(dir, "deployment.json"), JSON.stringify(deployment));
      // --force: a deployment written by hand has no magic cookie (the engine computes one when it writes).
      await run(["stack", "import", "--stack", "dev", "--file", "deployment.json", "--force"]);
    }, 60_000);
    afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

    it("lists what bills of the stack with its rate, hours and actual dollars, says what no route covers, and totals it", async () => {
      const result = await emu.run(["cost", "--stack", "dev", "--cwd", dir, "--from", T0, "--to", at(3 * HOUR), "--json"], env);
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
      const report = JSON.parse(result.stdout);
      const pod = (await billed("/pods", `podId=${podId}&startTime=${T0}&endTime=${at(3 * HOUR)}`)).metadata.totals.totalAmount;
      const volume = (await billed("/network-volumes", `networkVolumeId=${volumeId}&startTime=${T0}&endTime=${at(3 * HOUR)}`)).metadata.totals.totalAmount;
      expect(report.stack).toBe("costs/dev");
      expect(report.resources).toEqual([
        { kind: "Pod", name: "trainer", id: podId, source: "state", costPerHour: 0.69, hoursBilled: expect.closeTo(3, 4), actual: expect.closeTo(pod, 6) },
        { kind: "NetworkVolume", name: "data", id: volumeId, source: "state", costPerHour: null, hoursBilled: null, actual: expect.closeTo(volume, 6) },
        { kind: "Sandbox", name: "scratch", id: "sb-not-billed", source: "state", costPerHour: 0.1, hoursBilled: null, actual: null },
      ]);
      expect(report.total).toBeCloseTo(pod + volume, 6);
      expect(report.notes).toEqual(expect.arrayContaining(["1 sandbox(es) not in the total: the service's billing routes have no sandbox records."]));

      const table = await emu.run(["cost", "--stack", "dev", "--cwd", dir, "--from", T0, "--to", at(3 * HOUR)], env);
      const rows = tableRows(table.stdout);
      expect(rows[0]).toEqual(["KIND", "NAME", "ID", "IN STACK", "$/HR (STATE)", "HOURS", "ACTUAL"]);
      expect(rows.find((r) => r[0] === "Sandbox")).toEqual(["Sandbox", "scratch", "sb-not-billed", "yes", "$0.10", "-", "no billing route"]);
    });

    it("a stack the backend does not have fails in one line naming it", async () => {
      const result = await emu.run(["cost", "--stack", "nope", "--cwd", dir], env);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/pulumi stack export failed: .*nope/);
    });
  });
});
