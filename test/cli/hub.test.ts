/** `compute hub list|search|get` against the emulator (in-process, as every emulator-backed CLI case runs: test/cli/helpers.ts). */
import { execFile } from "node:child_process";
import { parse as parseYaml } from "yaml";
import { defaultFixture, type FixtureRepo } from "../helpers/fixtures";
import { BIN, cliEnv, tableRows, useEmulator } from "./helpers";

const emu = useEmulator();
const fixture = defaultFixture();
const byStars = [...fixture.hubRepos].sort((a, b) => b.stars - a.stars);

/**
 * Query strings of the GET /v2/hub/repos requests the emulator received, as objects. Tests run
 * side by side, so each one looks for its own query (they differ in --limit or a filter).
 */
async function hubQueries(): Promise<Array<Record<string, string>>> {
  const requests = await emu.control.requests();
  return requests.filter((r) => r.method === "GET" && r.path === "/v2/hub/repos").map((r) => Object.fromEntries(new URLSearchParams(r.query)));
}

describe("hub list", () => {
  test.concurrent("default: a table of the top 10 by stars, nothing on stderr, exit 0", async () => {
    const r = await emu.run(["hub", "list"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(""); // no spinner when stderr is not a terminal
    const [head, ...rows] = tableRows(r.stdout);
    expect(head).toEqual(["ID", "REPOSITORY", "TYPE", "CATEGORY", "STARS", "DEPLOYS", "RELEASE", "TITLE"]);
    expect(rows.map((row) => row[0])).toEqual(byStars.slice(0, 10).map((repo) => repo.id));
    const top = byStars[0]!;
    expect(rows[0]).toEqual([top.id, `${top.owner}/${top.name}`, top.type, top.category, String(top.stars), String(top.deploys), top.release!.tag, expect.any(String)]);
    expect(await hubQueries()).toContainEqual({ orderBy: "stars", orderDir: "desc", limit: "10" });
  });

  test.concurrent("--type is applied after the page arrives: fewer than --limit rows, and a note says so", async () => {
    const page = byStars.slice(0, 5);
    const pods = page.filter((repo) => repo.type === "POD");
    expect(pods.length).toBeGreaterThan(0);
    expect(pods.length).toBeLessThan(5); // the fixture makes this case real
    const r = await emu.run(["hub", "list", "--type", "POD", "--limit", "5"]);
    expect(r.code).toBe(0);
    const [, ...rows] = tableRows(r.stdout);
    expect(rows.map((row) => row[0])).toEqual(pods.map((repo) => repo.id));
    expect(r.stderr).toBe(`(${pods.length} of the 5 repositories on this page are POD; more may follow with --offset 5)\n`);
    // Exactly these parameters: the service has no type filter.
    expect(await hubQueries()).toContainEqual({ orderBy: "stars", orderDir: "desc", limit: "5" });
  });

  test.concurrent("--type SERVERLESS --json: only SERVERLESS repositories of the page, no note on stderr", async () => {
    const r = await emu.run(["hub", "list", "--type", "SERVERLESS", "--limit", "7", "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const repos = JSON.parse(r.stdout) as FixtureRepo[];
    expect(repos.map((repo) => repo.id)).toEqual(byStars.slice(0, 7).filter((repo) => repo.type === "SERVERLESS").map((repo) => repo.id));
    expect(repos.length).toBeLessThan(7);
  });

  test.concurrent("--category and --owner are passed to the service", async () => {
    const r = await emu.run(["hub", "list", "--category", "LLM", "--owner", "runpod-workers", "--json"]);
    expect(r.code).toBe(0);
    const repos = JSON.parse(r.stdout) as FixtureRepo[];
    const expected = byStars.filter((repo) => repo.category === "LLM" && repo.owner === "runpod-workers");
    expect(expected.length).toBeGreaterThan(0);
    expect(repos.map((repo) => repo.id)).toEqual(expected.map((repo) => repo.id));
    expect(await hubQueries()).toContainEqual({ category: "LLM", owner: "runpod-workers", orderBy: "stars", orderDir: "desc", limit: "10" });
  });

  test.concurrent("a category with spaces", async () => {
    const r = await emu.run(["hub", "list", "--category", "Image Generation", "--limit", "100", "--json"]);
    const repos = JSON.parse(r.stdout) as FixtureRepo[];
    expect(repos.length).toBe(fixture.hubRepos.filter((repo) => repo.category === "Image Generation").length);
    expect(repos.every((repo) => repo.category === "Image Generation")).toBe(true);
  });

  test.concurrent("--order-by, each field in both directions", async () => {
    const fields = ["createdAt", "deploys", "releasedAt", "stars", "updatedAt", "views"] as const;
    const cases = fields.flatMap((field) => (["asc", "desc"] as const).map((dir) => ({ field, dir })));
    const results = await Promise.all(cases.map(({ field, dir }) => emu.run(["hub", "list", "--order-by", field, "--order-dir", dir, "--limit", "100", "--json"])));
    for (const [i, { field, dir }] of cases.entries()) {
      const r = results[i]!;
      expect({ field, dir, code: r.code }).toEqual({ field, dir, code: 0 });
      const repos = JSON.parse(r.stdout) as FixtureRepo[];
      expect(repos).toHaveLength(fixture.hubRepos.length);
      const values = repos.map((repo) => repo[field]).filter((v): v is string | number => v !== null);
      const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect({ field, dir, values }).toEqual({ field, dir, values: dir === "asc" ? sorted : sorted.reverse() });
    }
    const queries = await hubQueries();
    for (const { field, dir } of cases) expect(queries).toContainEqual({ orderBy: field, orderDir: dir, limit: "100" });
  });

  test.concurrent("--limit and --offset page through the list", async () => {
    const r = await emu.run(["hub", "list", "--limit", "3", "--offset", "2"]);
    expect(r.code).toBe(0);
    const [, ...rows] = tableRows(r.stdout);
    expect(rows.map((row) => row[0])).toEqual(byStars.slice(2, 5).map((repo) => repo.id));
    expect(await hubQueries()).toContainEqual({ orderBy: "stars", orderDir: "desc", limit: "3", offset: "2" });
  });

  test.concurrent("an offset past the end: a sentence in table mode, [] in JSON", async () => {
    const [table, json] = await Promise.all([emu.run(["hub", "list", "--offset", "1000"]), emu.run(["hub", "list", "--offset", "1000", "--json"])]);
    expect(table).toEqual({ code: 0, stdout: "No repositories found.\n", stderr: "" });
    expect(JSON.parse(json.stdout)).toEqual([]);
  });

  test.concurrent("--output yaml parses to the same data as --json", async () => {
    const [yaml, json] = await Promise.all([emu.run(["hub", "list", "--output", "yaml", "--limit", "4"]), emu.run(["hub", "list", "--limit", "4", "--json"])]);
    expect(yaml.code).toBe(0);
    expect(parseYaml(yaml.stdout)).toEqual(JSON.parse(json.stdout));
    expect((JSON.parse(json.stdout) as unknown[]).length).toBe(4);
  });

  test.concurrent("COMPUTE_OUTPUT=yaml is the default format, and --json overrides it", async () => {
    const [yaml, json] = await Promise.all([
      emu.run(["hub", "list", "--limit", "2"], { COMPUTE_OUTPUT: "yaml" }),
      emu.run(["hub", "list", "--limit", "2", "--json"], { COMPUTE_OUTPUT: "yaml" }),
    ]);
    expect((parseYaml(yaml.stdout) as FixtureRepo[]).map((repo) => repo.id)).toEqual(byStars.slice(0, 2).map((repo) => repo.id));
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as FixtureRepo[]).length).toBe(2);
  });

  test.concurrent("flags win over variables: --base-url and --api-key", async () => {
    const r = await emu.run(["hub", "list", "--limit", "1", "--base-url", emu.url, "--api-key", emu.apiKey, "--json"], {
      COMPUTE_BASE_URL: "http://127.0.0.1:9",
      COMPUTE_API_KEY: "cs_not_a_key_000",
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(1);
  });

  test.concurrent("a wrong key: 401 with the status, detail and a hint; the key is not printed", async () => {
    const r = await emu.run(["hub", "list", "--limit", "9"], { COMPUTE_API_KEY: "cs_wrong_key_424242" });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^error: GET \/v2\/hub\/repos failed with 401 \S.*: \S.+\nhint: check the API key \(--api-key or COMPUTE_API_KEY\)\n$/);
    expect(r.stderr).not.toContain("cs_wrong_key_424242");
  });

  test("a 500 is retried away by the SDK; a 400 is an API error (exit 1) with each of its errors", async () => {
    await emu.control.addFault({ method: "GET", path: "/v2/hub/repos", status: 500, times: 1 });
    const retried = await emu.run(["hub", "list", "--limit", "1", "--json"]);
    expect(retried.code).toBe(0); // one 500 is retried away by the SDK
    await emu.control.addFault({ method: "GET", path: "/v2/hub/repos", status: 400, body: { title: "Bad Request", status: 400, detail: "injected refusal", errors: ["limit: made up"] }, times: 1 });
    const refused = await emu.run(["hub", "list"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe("error: GET /v2/hub/repos failed with 400 Bad Request: injected refusal\n  - limit: made up\n");
  });
});

describe("progress on a slow request", () => {
  test("a spinner on a terminal (run under a pseudo-terminal with `script`), erased before the table", async () => {
    await emu.control.addFault({ method: "GET", path: "/v2/hub/repos", latencyMs: 700, times: 1 });
    const output = await new Promise<{ code: number; text: string }>((done) => {
      execFile("script", ["-qec", `"${process.execPath}" "${BIN}" hub list --limit 2`, "/dev/null"], { env: cliEnv(emu.env()) }, (error, stdout) =>
        done({ code: error ? Number(error.code) : 0, text: stdout }),
      );
    });
    expect(output.code).toBe(0);
    expect(output.text).toMatch(/\r[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Listing Hub repositories\x1b\[K/);
    expect(output.text).toContain("\r\x1b[KID "); // the line is cleared, then the table starts
    expect(output.text).toContain(byStars[1]!.id);
  });

  test("no spinner when stderr is not a terminal, however slow", async () => {
    await emu.control.addFault({ method: "GET", path: "/v2/hub/repos", latencyMs: 700, times: 1 });
    const r = await emu.run(["hub", "list", "--limit", "2"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
  });
});

describe("hub search", () => {
  test.concurrent("searches names case-insensitively and takes the list flags", async () => {
    const r = await emu.run(["hub", "search", "WORKER", "--limit", "100", "--json"]);
    expect(r.code).toBe(0);
    const repos = JSON.parse(r.stdout) as FixtureRepo[];
    const expected = byStars.filter((repo) => repo.name.toLowerCase().includes("worker"));
    expect(repos.map((repo) => repo.id)).toEqual(expected.map((repo) => repo.id));
    expect(await hubQueries()).toContainEqual({ query: "WORKER", orderBy: "stars", orderDir: "desc", limit: "100" });
  });

  test.concurrent("--type filters search results too", async () => {
    const r = await emu.run(["hub", "search", "o", "--type", "POD", "--order-by", "views", "--order-dir", "asc", "--limit", "6", "--json"]);
    expect(r.code).toBe(0);
    const repos = JSON.parse(r.stdout) as FixtureRepo[];
    const page = [...fixture.hubRepos].filter((repo) => repo.name.toLowerCase().includes("o")).sort((a, b) => a.views - b.views).slice(0, 6);
    expect(repos.map((repo) => repo.id)).toEqual(page.filter((repo) => repo.type === "POD").map((repo) => repo.id));
  });

  test.concurrent("no match", async () => {
    const r = await emu.run(["hub", "search", "zzz-nothing"]);
    expect(r).toEqual({ code: 0, stdout: "No repositories found.\n", stderr: "" });
  });
});

describe("hub get", () => {
  test.concurrent("by id: one field per line, with the release configuration", async () => {
    const repo = fixture.hubRepos.find((r) => r.id === "hub_662work")!;
    const r = await emu.run(["hub", "get", repo.id]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const fields = Object.fromEntries(r.stdout.trim().split("\n").map((line) => line.split(/\s{2,}/) as [string, string]));
    expect(fields).toMatchObject({
      ID: repo.id,
      Repository: `${repo.owner}/${repo.name}`,
      Type: repo.type,
      Stars: String(repo.stars),
      Image: repo.release!.image,
      "GPU types": repo.release!.config.gpuIds.join(", "),
      "GPU count": String(repo.release!.config.gpuCount),
      "Container disk": `${repo.release!.config.containerDiskInGb} GB`,
    });
  });

  test.concurrent("by owner/name, as YAML", async () => {
    const r = await emu.run(["hub", "get", "runpod-workers/worker-vllm", "--output", "yaml"]);
    expect(r.code).toBe(0);
    expect(parseYaml(r.stdout)).toMatchObject({ id: "hub_662work", owner: "runpod-workers", name: "worker-vllm" });
    const requests = await emu.control.requests();
    expect(requests.map((q) => q.path)).toContain("/v2/hub/repos/runpod-workers/worker-vllm");
  });

  test.concurrent("a repository without a release says it cannot be deployed", async () => {
    const unreleased = fixture.hubRepos.find((repo) => repo.release === null)!;
    const [r, json] = await Promise.all([emu.run(["hub", "get", unreleased.id]), emu.run(["hub", "get", unreleased.id, "--json"])]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Release\s+none \(not published: cannot be deployed yet\)$/m);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: unreleased.id, release: null });
  });

  test.concurrent("unknown id: exit 1 with the 404's status and detail, nothing on stdout", async () => {
    const r = await emu.run(["hub", "get", "hub_nope"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^error: GET \/v2\/hub\/repos\/hub_nope failed with 404 Not Found: .*hub_nope.*\n$/);
  });

  test.concurrent("unknown owner/name: 404 on the owner/name path", async () => {
    const r = await emu.run(["hub", "get", "nobody/nothing"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: GET \/v2\/hub\/repos\/nobody\/nothing failed with 404 Not Found: /);
  });
});
