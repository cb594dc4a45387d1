/**
 * docs/api-coverage.md against what it describes: its public table against the public OpenAPI's
 * operations, its emulator column against the routes the emulator registers (the same list its
 * router is built from, emulator/families.ts), its SDK column against the methods of the SDK
 * client, and the names of its used-by column against the package's resources and functions and
 * the `compute` command tree. No engine, no network: the emulator is constructed, never started.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { Emulator } from "../../emulator/emulator";
import { FAMILIES } from "../../emulator/families";
import { loadFixture } from "../../emulator/fixture";
import { resolveTimings } from "../../emulator/options";
import { ComputeClient } from "../../sdk/client";
import type { Command } from "commander";
import { buildProgram } from "../../cli/program";
import { FUNCTIONS } from "../../provider/functions";
import { RESOURCES } from "../../provider/resources";

const ROOT = path.resolve(__dirname, "../..");
const METHODS = ["get", "post", "put", "patch", "delete"];

interface Row {
  section: "public" | "seed";
  /** `GET /v2/pods/{}`: path parameters unnamed, as both sides are compared. */
  key: string;
  operation: string;
  operationId: string | undefined;
  emulator: boolean;
  sdk: string[];
  /** The names in backquotes of the "used by" cell. */
  usedBy: string[];
}

/** `/v2/pods/{id}` and `/v2/pods/:id` both as `/v2/pods/{}`. */
const normalise = (method: string, route: string) =>
  `${method.toUpperCase()} ${route.replace(/\{[^}]+\}/g, "{}").replace(/:[A-Za-z]+/g, "{}")}`;

const code = (cell: string) => cell.match(/^`([^`]+)`$/)?.[1];

function readTable(): Row[] {
  const lines = readFileSync(path.join(ROOT, "docs/api-coverage.md"), "utf8").split("\n");
  const rows: Row[] = [];
  let section: Row["section"] | undefined;
  for (const line of lines) {
    if (line.startsWith("## ")) section = line === "## Public operations" ? "public" : line === "## Seed-only operations" ? "seed" : undefined;
    if (!section || !line.startsWith("| `")) continue;
    const cells = line.slice(1, -1).split(" | ").map((cell) => cell.trim());
    expect(cells).toHaveLength(5);
    const [operation, operationId, emulator, sdk, usedBy] = cells;
    const [method, route] = (code(operation) ?? "").split(" ");
    expect(["yes", "no"]).toContain(emulator);
    rows.push({
      section,
      key: normalise(method, route),
      operation: code(operation) ?? operation,
      operationId: code(operationId),
      emulator: emulator === "yes",
      sdk: sdk === "—" ? [] : sdk.split(", ").map((call) => code(call) ?? call),
      usedBy: [...usedBy.matchAll(/`([^`]+)`/g)].map(([, name]) => name),
    });
  }
  return rows;
}

/** Every operation of the public OpenAPI, as `GET /v2/pods/{}` → operationId. */
function openApiOperations(): Map<string, string> {
  const document = JSON.parse(readFileSync(path.join(ROOT, "test/fixtures/openapi/reference-openapi-v2.json"), "utf8")) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const operations = new Map<string, string>();
  for (const [route, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS.includes(method)) operations.set(normalise(method, route), operation.operationId);
    }
  }
  return operations;
}

/** The emulator's API routes, from its families' own route tables (what its router is built from). */
function emulatorRoutes(): Set<string> {
  const emulator = new Emulator({ fixture: loadFixture(undefined), timings: resolveTimings("fast") });
  return new Set(FAMILIES.flatMap((family) => ("routes" in family && family.routes ? family.routes(emulator) : [])).map((r) => normalise(r.method, r.path)));
}

const rows = readTable();
const sorted = (values: Iterable<string>) => [...values].sort();

describe("docs/api-coverage.md", () => {
  test("lists each operation once", () => {
    const keys = rows.map((row) => row.key);
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
  });

  test("its public table holds exactly the public OpenAPI's operations, with their operationIds", () => {
    const operations = openApiOperations();
    expect(operations.size).toBe(53);
    const publicRows = rows.filter((row) => row.section === "public");
    expect(sorted(publicRows.map((row) => row.key))).toEqual(sorted(operations.keys()));
    for (const row of publicRows) expect({ operation: row.operation, operationId: row.operationId }).toEqual({ operation: row.operation, operationId: operations.get(row.key) });
  });

  test("its seed-only operations are not in the public OpenAPI, and have no operationId", () => {
    const operations = openApiOperations();
    for (const row of rows.filter((r) => r.section === "seed")) {
      expect({ operation: row.operation, public: operations.has(row.key), operationId: row.operationId }).toEqual({ operation: row.operation, public: false, operationId: undefined });
    }
  });

  test("its emulator column is the emulator's route list", () => {
    const routes = emulatorRoutes();
    expect(sorted(rows.filter((row) => row.emulator).map((row) => row.key))).toEqual(sorted(routes));
    // Every seed-only row is there because the emulator serves it.
    expect(rows.filter((row) => row.section === "seed" && !row.emulator).map((row) => row.operation)).toEqual([]);
  });

  test("its SDK column names methods of the SDK client", () => {
    const client = new ComputeClient({ baseUrl: "http://127.0.0.1:9", apiKey: "unused" });
    const missing = rows
      .flatMap((row) => row.sdk.map((call) => ({ operation: row.operation, call })))
      .filter(({ call }) => {
        const [namespace, method] = call.split(".");
        const target = (client as unknown as Record<string, Record<string, unknown> | undefined>)[namespace];
        return typeof target?.[method] !== "function";
      });
    expect(missing).toEqual([]);
    return client.close();
  });

  test("its used-by column names resources, functions and `compute` commands that exist", () => {
    const commands = new Set<string>();
    const walk = (command: Command, prefix: string) => {
      for (const sub of command.commands) {
        commands.add(`${prefix} ${sub.name()}`);
        walk(sub, `${prefix} ${sub.name()}`);
      }
    };
    walk(buildProgram(), "compute");
    const resources = new Set(RESOURCES.map((definition) => definition.name));
    const unknown = rows.flatMap((row) =>
      row.usedBy
        .filter((name) => /^(compute |get[A-Z]|[A-Z])/.test(name))
        .filter((name) => !(name.startsWith("compute ") ? commands.has(name) : name.startsWith("get") ? name in FUNCTIONS : resources.has(name)))
        .map((name) => ({ operation: row.operation, name })),
    );
    expect(unknown).toEqual([]);
    // Something is checked: the column is not all dashes and prose.
    expect(rows.filter((row) => row.usedBy.length > 0).length).toBeGreaterThan(30);
  });

  test("its figures agree with its tables", () => {
    const doc = readFileSync(path.join(ROOT, "docs/api-coverage.md"), "utf8");
    const count = (section: Row["section"], test: (row: Row) => boolean) => rows.filter((row) => row.section === section && test(row)).length;
    const expected = [
      `| served by the emulator | ${count("public", (r) => r.emulator)} | ${count("seed", (r) => r.emulator)} |`,
      `| sent by the SDK | ${count("public", (r) => r.sdk.length > 0)} | ${count("seed", (r) => r.sdk.length > 0)} |`,
      `| neither | ${count("public", (r) => !r.emulator && r.sdk.length === 0)} | ${count("seed", (r) => !r.emulator && r.sdk.length === 0)} |`,
      `| | public (${count("public", () => true)}) | seed-only (${count("seed", () => true)}) |`,
    ];
    for (const line of expected) expect(doc).toContain(line);
  });
});
