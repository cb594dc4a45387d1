/** `compute sandbox list|set-idle-timeout|terminate` against the emulator. */
import { parse as parseYaml } from "yaml";
import { ComputeClient, type Sandbox } from "../../sdk";
import { KEYS } from "../helpers/fixtures";
import { eventually } from "../helpers/eventually";
import { tableRows, useEmulator } from "./helpers";

const emu = useEmulator();
let sdk: ComputeClient;
let alpha: Sandbox;
let beta: Sandbox;
let gamma: Sandbox;
let gone: Sandbox;

const compute = { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 };

function untilRunning(id: string): Promise<Sandbox> {
  return eventually(`${id} RUNNING`, () => sdk.sandboxes.get(id), { until: (sandbox) => sandbox.state === "RUNNING", timeoutMs: 5000 });
}

beforeAll(async () => {
  sdk = new ComputeClient({ baseUrl: emu.url, apiKey: emu.apiKey, env: {} });
  alpha = await sdk.sandboxes.create({ name: "alpha", image: "python:3.12", compute, labels: { team: "ml", env: "dev" } });
  beta = await sdk.sandboxes.create({ name: "beta", image: "node:20", compute, labels: { team: "ml", env: "prod" } });
  gamma = await sdk.sandboxes.create({ name: "gamma", image: "python:3.12", compute, labels: { team: "data" } });
  gone = await sdk.sandboxes.create({ name: "gone", image: "busybox", compute, labels: { team: "web" } });
  await Promise.all([untilRunning(alpha.id), untilRunning(beta.id), untilRunning(gamma.id), untilRunning(gone.id)]);
  await sdk.sandboxes.delete(gone.id);
});

afterAll(async () => {
  await sdk?.close();
});

/** Queries of GET /v2/sandboxes received so far, decoded, parameters sorted (tests run side by side). */
async function listQueries(): Promise<string[]> {
  return (await emu.control.requests())
    .filter((r) => r.method === "GET" && r.path === "/v2/sandboxes")
    .map((r) => [...new URLSearchParams(r.query)].map(([k, v]) => `${k}=${v}`).sort().join("&"));
}

describe("sandbox list", () => {
  test.concurrent("a table of the live sandboxes (terminated ones left out)", async () => {
    const r = await emu.run(["sandbox", "list"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const [head, ...rows] = tableRows(r.stdout);
    expect(head).toEqual(["ID", "NAME", "STATE", "IMAGE", "DATA CENTER", "IDLE TIMEOUT", "IDLE EXPIRES", "EXPIRES", "LABELS"]);
    expect(rows.map((row) => row[0]).sort()).toEqual([alpha.id, beta.id, gamma.id].sort());
    const alphaRow = rows.find((row) => row[0] === alpha.id)!;
    expect(alphaRow.slice(1, 4)).toEqual(["alpha", "RUNNING", "python:3.12"]);
    expect(alphaRow[5]).toBe("600 s");
    expect(alphaRow[8]).toBe("team=ml,env=dev");
  });

  test.concurrent("--state TERMINATED lists the terminated one, with its reason", async () => {
    const r = await emu.run(["sandbox", "list", "--state", "TERMINATED"]);
    expect(r.code).toBe(0);
    const [, ...rows] = tableRows(r.stdout);
    expect(rows.map((row) => [row[0], row[2]])).toEqual([[gone.id, "TERMINATED (USER_REQUESTED)"]]);
    expect(await listQueries()).toContain("state=TERMINATED");
  });

  test.concurrent("--state CREATING, RUNNING, FAILED are passed to the service", async () => {
    const states = ["CREATING", "RUNNING", "FAILED"];
    const results = await Promise.all(states.map((state) => emu.run(["sandbox", "list", "--state", state, "--json"])));
    for (const [i, state] of states.entries()) {
      expect(results[i]!.code).toBe(0);
      const rows = JSON.parse(results[i]!.stdout) as Sandbox[];
      expect(rows.every((s) => s.state === state)).toBe(true);
      expect({ state, count: rows.length }).toEqual({ state, count: state === "RUNNING" ? 3 : 0 });
    }
    const sent = await listQueries();
    for (const state of states) expect(sent).toContain(`state=${state}`);
  });

  test.concurrent("--label is repeatable and every label must match", async () => {
    const one = await emu.run(["sandbox", "list", "--label", "team=ml", "--json"]);
    expect((JSON.parse(one.stdout) as Sandbox[]).map((s) => s.id).sort()).toEqual([alpha.id, beta.id].sort());
    const two = await emu.run(["sandbox", "list", "--label", "team=ml", "--label", "env=prod", "--json"]);
    expect((JSON.parse(two.stdout) as Sandbox[]).map((s) => s.id)).toEqual([beta.id]);
    expect(await listQueries()).toContain("labels=env=prod&labels=team=ml");
  });

  test.concurrent("no match: a sentence in table mode, [] in JSON, an empty YAML list", async () => {
    const [table, json, yaml] = await Promise.all(
      [[], ["--json"], ["-o", "yaml"]].map((format) => emu.run(["sandbox", "list", "--label", "team=none", ...format])),
    );
    expect(table).toEqual({ code: 0, stdout: "No sandboxes found.\n", stderr: "" });
    expect(JSON.parse(json!.stdout)).toEqual([]);
    expect(parseYaml(yaml!.stdout)).toEqual([]);
  });

  test.concurrent("--output yaml carries the whole sandbox objects", async () => {
    const r = await emu.run(["sandbox", "list", "--output", "yaml", "--label", "env=dev"]);
    expect(r.code).toBe(0);
    const [sandbox] = parseYaml(r.stdout) as Sandbox[];
    expect(sandbox).toMatchObject({ id: alpha.id, name: "alpha", labels: { team: "ml", env: "dev" }, compute: { vcpuCount: 1 } });
  });

  test.concurrent("a key without access to sandboxes: 403 with the service's detail", async () => {
    const r = await emu.run(["sandbox", "list"], { COMPUTE_API_KEY: KEYS.devNoSandboxes });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: GET \/v2\/sandboxes failed with 403 Forbidden: .*sandboxes.*\n$/);
  });
});

describe("sandbox set-idle-timeout", () => {
  test.concurrent("above the account maximum: the applied value and that it was clamped", async () => {
    const r = await emu.run(["sandbox", "set-idle-timeout", alpha.id, "99999"]);
    expect(r.code).toBe(0);
    const applied = (await emu.control.account("acct_dev")).maxIdleTimeoutSeconds as number;
    expect(applied).toBeLessThan(99999);
    expect((await sdk.sandboxes.get(alpha.id)).idleTimeoutSeconds).toBe(applied);
    expect(r.stdout.split("\n")[0]).toBe(`Idle timeout set to ${applied} s (requested 99999 s, clamped by the service)`);
    expect(r.stdout).toContain(`Sandbox ${alpha.id} will be terminated at `);
  });

  test.concurrent("under 90: raised to 90, reported as clamped (JSON)", async () => {
    const r = await emu.run(["sandbox", "set-idle-timeout", beta.id, "30", "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toEqual({ id: beta.id, requestedIdleTimeoutSeconds: 30, idleTimeoutSeconds: 90, clamped: true, idleExpiresAt: expect.any(String) });
    expect((await sdk.sandboxes.get(beta.id)).idleTimeoutSeconds).toBe(90);
  });

  test.concurrent("a value in range is applied as asked, with no clamping remark", async () => {
    const r = await emu.run(["sandbox", "set-idle-timeout", gamma.id, "1200"]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe("Idle timeout set to 1200 s");
    expect((await sdk.sandboxes.get(gamma.id)).idleTimeoutSeconds).toBe(1200);
    const patches = (await emu.control.requests()).filter((q) => q.method === "PATCH" && q.path === `/v2/sandboxes/${gamma.id}`);
    expect(patches.map((q) => q.status)).toEqual([200]);
  });

  test.concurrent("a terminated sandbox: exit 1 with the 422", async () => {
    const r = await emu.run(["sandbox", "set-idle-timeout", gone.id, "600"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error: PATCH /v2/sandboxes/${gone.id} failed with 422 Unprocessable Entity: .+\\n$`));
  });

  test.concurrent("an unknown sandbox: exit 1 with the 404", async () => {
    const r = await emu.run(["sandbox", "set-idle-timeout", "sb-unknown", "600"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: PATCH \/v2\/sandboxes\/sb-unknown failed with 404 Not Found: .*sb-unknown.*\n$/);
  });
});

describe("sandbox terminate", () => {
  test.concurrent("terminates, and terminating again succeeds the same way (idempotent)", async () => {
    const first = await emu.run(["sandbox", "terminate", beta.id]);
    expect(first).toEqual({ code: 0, stdout: `Sandbox ${beta.id} terminated.\n`, stderr: "" });
    expect(await sdk.sandboxes.get(beta.id)).toMatchObject({ state: "TERMINATED", terminationReason: "USER_REQUESTED" });
    const again = await emu.run(["sandbox", "terminate", beta.id, "--json"]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ id: beta.id, terminated: true });
    const deletes = (await emu.control.requests()).filter((q) => q.method === "DELETE" && q.path === `/v2/sandboxes/${beta.id}`).map((q) => q.status);
    expect(deletes).toEqual([204, 204]);
  });

  test.concurrent("an unknown sandbox: exit 1 with the 404", async () => {
    const r = await emu.run(["sandbox", "terminate", "sb-unknown"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^error: DELETE \/v2\/sandboxes\/sb-unknown failed with 404 Not Found: /);
  });
});
