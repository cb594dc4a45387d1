/**
 * The command line itself: help, version, usage errors (exit 2, before any request) and
 * configuration errors (exit 1). No service is needed: every case here must fail or finish
 * before a request could be sent — which the runs without a base URL or key prove. Help and
 * version run `compute` as a process (bin.js: the exit code and the streams as a shell sees
 * them); the command tree's help, the usage and the configuration errors run it in-process
 * (test/cli/helpers.ts, runCliInProcess), through the same run() and with the same environment.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, runCli, runCliInProcess } from "./helpers";

const NO_SERVICE = { COMPUTE_BASE_URL: undefined, COMPUTE_API_KEY: undefined };
/** A reachable-looking service that is never contacted: a usage error must not need it. */
const UNUSED_SERVICE = { COMPUTE_BASE_URL: "http://127.0.0.1:9", COMPUTE_API_KEY: "cs_unused_key_000" };

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

describe("help and version", () => {
  test.concurrent("compute --help lists every command group and exits 0", async () => {
    const r = await runCli(["--help"], NO_SERVICE);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    for (const group of ["hub", "serverless", "sandbox", "catalog"]) expect(r.stdout).toMatch(new RegExp(`^  ${group} `, "m"));
    expect(r.stdout).toContain("Examples:");
    expect(r.stdout).toContain("COMPUTE_API_KEY");
  });

  test.concurrent("compute --version prints the package version", async () => {
    const r = await runCli(["--version"], NO_SERVICE);
    expect(r).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  test.concurrent("compute with no command prints help on stderr and exits 2", async () => {
    const r = await runCli([], NO_SERVICE);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("Usage: compute");
  });

  test.concurrent("a group without its command exits 2 with the group's help", async () => {
    const r = await runCli(["sandbox"], NO_SERVICE);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Usage: compute sandbox");
    expect(r.stderr).toContain("set-idle-timeout");
  });

  test.concurrent("`compute help hub` is the same as `compute hub --help`", async () => {
    const a = await runCli(["help", "hub"], NO_SERVICE);
    const b = await runCli(["hub", "--help"], NO_SERVICE);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
  });
});

/** Every leaf command, found by walking `--help` (so a new command cannot skip these checks). */
async function commandTree(path: string[] = []): Promise<Array<{ path: string[]; help: string }>> {
  const r = await runCliInProcess([...path, "--help"], NO_SERVICE);
  expect(r.code).toBe(0);
  const commands = section(r.stdout, "Commands:")
    .map((line) => /^ {2}(\S+)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== "help");
  if (commands.length === 0) return [{ path, help: r.stdout }];
  const children = await Promise.all(commands.map((name) => commandTree([...path, name])));
  return [{ path, help: r.stdout }, ...children.flat()];
}

function section(help: string, title: string): string[] {
  const lines = help.split("\n");
  const start = lines.indexOf(title);
  if (start < 0) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "" || !line.startsWith(" ")) break;
    out.push(line);
  }
  return out;
}

function longFlags(lines: string[]): string[] {
  return lines.map((l) => /^ {2}(?:-\w, )?(--[a-z][a-z-]*)/.exec(l)?.[1]).filter((f): f is string => f !== undefined);
}

describe("every command has help with examples, and docs/cli.md agrees with it", () => {
  let tree: Array<{ path: string[]; help: string }>;
  const docs = readFileSync(join(ROOT, "docs", "cli.md"), "utf8");

  beforeAll(async () => {
    tree = await commandTree();
  }, 60_000);

  test("the command tree is the one the issue asks for", () => {
    const leaves = tree.filter((t) => !t.help.includes("\nCommands:")).map((t) => t.path.join(" "));
    expect(leaves.sort()).toEqual(
      [
        "catalog cpus",
        "catalog datacenters",
        "catalog gpus",
        "catalog templates",
        "cost",
        "hub get",
        "hub list",
        "hub search",
        "ps",
        "reap",
        "sandbox list",
        "sandbox logs",
        "sandbox set-idle-timeout",
        "sandbox terminate",
        "serverless create",
      ].sort(),
    );
  });

  test("each command's --help has examples", () => {
    for (const { path, help } of tree) {
      expect({ path, hasExamples: /\nExamples:\n {2}\$ \S/.test(help) && help.includes("$ compute ") }).toEqual({ path, hasExamples: true });
    }
  });

  test("each leaf command has a section in docs/cli.md naming each of its flags", () => {
    for (const { path, help } of tree) {
      if (path.length === 0 || help.includes("\nCommands:")) continue; // groups have no flags of their own
      const heading = `### \`compute ${path.join(" ")}\``;
      const start = docs.indexOf(heading);
      expect({ heading, found: start >= 0 }).toEqual({ heading, found: true });
      const end = docs.indexOf("\n### ", start + heading.length);
      const body = docs.slice(start, end < 0 ? undefined : end);
      // hub search documents its flags by reference to hub list
      const documented = path.join(" ") === "hub search" ? docs.slice(docs.indexOf("### `compute hub list`")) : body;
      for (const flag of longFlags(section(help, "Options:")).filter((f) => f !== "--help")) {
        expect({ command: path.join(" "), flag, documented: documented.includes(`\`${flag}`) }).toEqual({ command: path.join(" "), flag, documented: true });
      }
    }
  });

  test("docs/cli.md documents every global flag and every command of the help", () => {
    const top = tree.find((t) => t.path.length === 0)!;
    for (const flag of longFlags(section(top.help, "Options:"))) expect({ flag, documented: docs.includes(`\`${flag}`) }).toEqual({ flag, documented: true });
    for (const { path } of tree.filter((t) => t.path.length > 0 && !t.help.includes("\nCommands:"))) expect(docs).toContain(`\`compute ${path.join(" ")}`);
  });

  test("docs/cli.md and the help give the same hub defaults and choices", () => {
    const help = tree.find((t) => t.path.join(" ") === "hub list")!.help.replace(/\s+/g, " ");
    expect(help).toContain('(choices: "createdAt", "deploys", "releasedAt", "stars", "updatedAt", "views", default: "stars")');
    expect(help).toContain('(choices: "asc", "desc", default: "desc")');
    expect(help).toContain("(default: 10)");
    expect(docs).toContain("| `--order-by <field>` | `stars` | `createdAt`, `deploys`, `releasedAt`, `stars`, `updatedAt`, `views` |");
    expect(docs).toContain("| `--order-dir <dir>` | `desc` | `asc`, `desc` |");
    expect(docs).toContain("| `--limit <n>` | `10` |");
  });
});

/** [arguments, text the error must contain] — each must exit 2 before any request. */
const USAGE_ERRORS: Array<[string[], string | RegExp]> = [
  [["nope"], "unknown command 'nope'"],
  [["hub", "lst"], /unknown command 'lst'[\s\S]*Did you mean list\?/],
  [["hub", "list", "--bogus"], "unknown option '--bogus'"],
  [["hub", "list", "extra"], "too many arguments"],
  [["hub", "list", "--order-by", "popularity"], "Allowed choices are createdAt, deploys, releasedAt, stars, updatedAt, views."],
  [["hub", "list", "--order-by"], "option '--order-by <field>' argument missing"],
  [["hub", "list", "--order-dir", "up"], "Allowed choices are asc, desc."],
  [["hub", "list", "--type", "VM"], "Allowed choices are POD, SERVERLESS."],
  [["hub", "list", "--type", "pod"], "Allowed choices are POD, SERVERLESS."],
  [["hub", "list", "--limit", "0"], "option '--limit <n>' argument '0' is invalid. Expected an integer between 1 and 100."],
  [["hub", "list", "--limit", "101"], "Expected an integer between 1 and 100."],
  [["hub", "list", "--limit", "ten"], "Expected an integer between 1 and 100."],
  [["hub", "list", "--limit", "2.5"], "Expected an integer between 1 and 100."],
  [["hub", "list", "--offset", "-1"], "option '--offset <n>' argument '-1' is invalid. Expected an integer >= 0."],
  [["hub", "list", "--category", ""], "Must not be empty."],
  [["hub", "search"], "missing required argument 'query'"],
  [["hub", "search", "  "], "Must not be empty."],
  [["hub", "search", "x", "--order-by", "name"], "Allowed choices are createdAt"],
  [["hub", "get"], "missing required argument 'ref'"],
  [["serverless", "create", "--name", "x"], "required option '--hub-id <id>' not specified"],
  [["serverless", "create", "--hub-id", "hub_662work"], "required option '--name <name>' not specified"],
  [["serverless", "create", "--hub-id", "hub_662work", "--name", ""], "Must not be empty."],
  [["serverless", "delete"], "unknown command 'delete'"],
  [["sandbox", "list", "--state", "running"], "Allowed choices are CREATING, RUNNING, TERMINATED, FAILED."],
  [["sandbox", "list", "--label", "team"], "option '--label <key=value>' argument 'team' is invalid. Expected key=value."],
  [["sandbox", "list", "--label", "=x"], "Expected key=value."],
  [["sandbox", "list", "--label", "bad key=x"], "must be 1-63 letters"],
  [["sandbox", "list", "--label", "a=1", "--label", "a=2"], 'Label key "a" is given twice'],
  [["sandbox", "logs"], "missing required argument 'id'"],
  [["sandbox", "logs", "sb_1", "--source", "stderr"], "Allowed choices are container, system."],
  [["sandbox", "logs", "sb_1", "--tail", "5001"], "Expected an integer between 0 and 5000."],
  [["sandbox", "logs", "sb_1", "--tail", "-1"], "Expected an integer between 0 and 5000."],
  [["sandbox", "logs", "sb_1", "--since", "yesterday"], "Expected an RFC 3339 date-time"],
  [["sandbox", "logs", "sb_1", "--since", "2026-11-23"], "Expected an RFC 3339 date-time"],
  [["sandbox", "logs", "sb_1", "--since", "2026-13-01T00:00:00Z"], "Expected an RFC 3339 date-time"],
  [["sandbox", "logs", "sb_1", "--since", "2026-11-23T10:00:00"], "Expected an RFC 3339 date-time"],
  [["sandbox", "set-idle-timeout", "sb_1"], "missing required argument 'seconds'"],
  [["sandbox", "set-idle-timeout", "sb_1", "ten"], "value 'ten' is invalid for argument 'seconds'. Expected an integer >= 0."],
  [["sandbox", "set-idle-timeout", "sb_1", "-5"], "value '-5' is invalid for argument 'seconds'. Expected an integer >= 0."],
  [["sandbox", "terminate"], "missing required argument 'id'"],
  [["catalog", "gpus", "--region", "EUROPE"], "unknown option '--region'"],
  [["catalog", "datacenters", "--region", "MARS"], "Allowed choices are NORTH_AMERICA"],
  [["catalog", "regions"], "unknown command 'regions'"],
  [["hub", "list", "--output", "xml"], 'Allowed choices are table, json, yaml.'],
  [["hub", "list", "--json", "--output", "yaml"], "--json contradicts --output yaml"],
];

describe("usage errors exit 2 with the reason on stderr, before any request", () => {
  // With a base URL and key that would fail (exit 1) if the CLI got as far as using them.
  test.concurrent.each(USAGE_ERRORS)("compute %j", async (args, expected) => {
    const r = await runCliInProcess(args, UNUSED_SERVICE);
    expect({ args, code: r.code }).toEqual({ args, code: 2 });
    expect(r.stdout).toBe("");
    if (typeof expected === "string") expect(r.stderr).toContain(expected);
    else expect(r.stderr).toMatch(expected);
    expect(r.stderr).toMatch(/^error: /m);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.stderr).not.toContain("cs_unused_key_000");
  });

  test.concurrent("usage errors need no configuration at all", async () => {
    const r = await runCliInProcess(["hub", "list", "--limit", "0"], NO_SERVICE);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain("COMPUTE_API_KEY");
  });

  test.concurrent("a connection that cannot be made: exit 1 naming the URL, after the SDK's retries", async () => {
    const r = await runCliInProcess(["catalog", "cpus"], UNUSED_SERVICE);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^error: GET \/v2\/catalog\/cpus: connection to http:\/\/127\.0\.0\.1:9 failed \(.*ECONNREFUSED.*\)\n$/);
    expect(r.stderr).not.toContain("cs_unused_key_000");
  });

  test.concurrent("an invalid COMPUTE_OUTPUT is a usage error naming the variable", async () => {
    const r = await runCliInProcess(["hub", "list"], { ...UNUSED_SERVICE, COMPUTE_OUTPUT: "xml" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("COMPUTE_OUTPUT");
    expect(r.stderr).toContain("xml");
  });
});

describe("configuration errors exit 1 and name the flag and the variable", () => {
  test.concurrent("no API key", async () => {
    const r = await runCliInProcess(["hub", "list"], { COMPUTE_BASE_URL: "http://127.0.0.1:9" });
    expect(r).toEqual({ code: 1, stdout: "", stderr: "error: no API key: pass --api-key <key> or set COMPUTE_API_KEY\n" });
  });

  test.concurrent("an empty COMPUTE_API_KEY counts as none", async () => {
    const r = await runCliInProcess(["sandbox", "list"], { COMPUTE_BASE_URL: "http://127.0.0.1:9", COMPUTE_API_KEY: "  " });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("set COMPUTE_API_KEY");
  });

  test.concurrent("no base URL", async () => {
    const r = await runCliInProcess(["catalog", "gpus"], { COMPUTE_API_KEY: "cs_secret_key_1234" });
    expect(r).toEqual({ code: 1, stdout: "", stderr: "error: no service URL: pass --base-url <url> or set COMPUTE_BASE_URL\n" });
  });

  test.concurrent("neither: both problems, one line each", async () => {
    const r = await runCliInProcess(["sandbox", "terminate", "sb_1"], NO_SERVICE);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual([
      "error: no service URL: pass --base-url <url> or set COMPUTE_BASE_URL",
      "error: no API key: pass --api-key <key> or set COMPUTE_API_KEY",
    ]);
  });

  test.concurrent("a base URL that is not http(s) is refused, and the key is never printed", async () => {
    const r = await runCliInProcess(["hub", "list", "--base-url", "ftp://example.com", "--api-key", "cs_secret_key_1234"], NO_SERVICE);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--base-url / COMPUTE_BASE_URL must be an http:// or https:// URL, got "ftp://example.com"');
    expect(r.stdout + r.stderr).not.toContain("cs_secret_key_1234");
  });
});
