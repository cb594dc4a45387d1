/**
 * CONTRIBUTING.md, "Adding a resource": a new kind is a folder under provider/resources/ and one line in
 * the registry, and every face and every generic test derives it from there. This suite does
 * exactly that to a copy of the project — a throwaway `Widget` (a template by another name,
 * with a price so the cost policy counts it), one folder, one registry line, nothing else but
 * the generated schema.json (`npm run schema`) — and
 * finds it in the TypeScript classes, the package schema, the native plugin's dispatch, the
 * policy pack, and in every generic test list of the registry.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { useScratch } from "../helpers/scratch";

const ROOT = path.resolve(__dirname, "../..");
/** What the copy needs to load the faces and run the registry's generic suites. */
// bench/budgets.json: the size budgets the generic suites hold every kind to.
const COPIED = ["contract", "sdk", "provider", "policy", "emulator", "test/provider", "test/helpers", "test/setup", "test/fixtures", "docs", "bench/budgets.json", "package.json", "tsconfig.json", "tsconfig.test.json", "schema.json", "scripts/generate-schema.js"];

const WIDGET = `/** A throwaway kind (test/provider/new-kind.test.ts): a template by another name, with a price. */
import { estimateSandboxCost } from "../../../contract/estimate";
import type { ResourceDefinition } from "../definition";
import { templateResource } from "../template";

export const widgetResource = {
  ...templateResource,
  name: "Widget",
  kind: "widget",
  description: "A throwaway kind.",
  price: {
    paths: [],
    lists: () => ({ gpuTypes: false, cpuFlavors: false }),
    estimate: () => estimateSandboxCost({ compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 } }),
  },
} satisfies ResourceDefinition;
`;

/** Loads each face of the copy and prints what it says of `Widget`. */
const FACES = `
const { classes } = require("./provider/classes");
const { packageSchema } = require("./provider/native/schema");
const runtime = require("./provider/runtime");
const { costKindOf } = require("./policy/resources");
const { estimateStack } = require("./policy/stack-estimate");
const schema = packageSchema("0.0.0");
const widget = schema.resources["compute:index:Widget"];
console.log(JSON.stringify({
  classGet: typeof classes.Widget?.get,
  schemaInputs: Object.keys(widget?.inputProperties ?? {}).sort(),
  nativeHandlers: Object.keys(runtime.nativeHandlersFor("compute:index:Widget")).sort(),
  dynamicHandlers: Object.keys(runtime.handlersFor("pulumi-nodejs:dynamic/compute:Widget")).sort(),
  policyKind: costKindOf("compute:index:Widget", {}),
  policyDollarsPerHour: estimateStack([{ urn: "urn:pulumi:s::p::compute:index:Widget::w", type: "compute:index:Widget", name: "w", props: { name: "w" } }], {}).dollarsPerHour,
}));
`;

/** The suites that iterate the registry: each must hold Widget tests with no edit. */
const GENERIC_SUITES = ["registry", "schema", "outputs", "every-kind"];

interface JestReport {
  testResults: Array<{ name: string; assertionResults: Array<{ fullName: string; status: string; failureMessages: string[] }> }>;
}

const scratch = useScratch("compute-new-kind-");
let copy: string;

beforeAll(() => {
  copy = scratch.tempDir();
  for (const entry of COPIED) cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
  symlinkSync(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"), "dir");
  // The folder, and the one registry line (with its import).
  mkdirSync(path.join(copy, "provider/resources/widget"));
  writeFileSync(path.join(copy, "provider/resources/widget/index.ts"), WIDGET);
  const registry = path.join(copy, "provider/resources/index.ts");
  const text = readFileSync(registry, "utf8");
  const withLine = text.replace("  clusterResource,\n];", "  clusterResource,\n  widgetResource,\n];").replace('import { templateResource } from "./template";', 'import { templateResource } from "./template";\nimport { widgetResource } from "./widget";');
  expect(withLine).not.toBe(text);
  writeFileSync(registry, withLine);
  // The committed schema is generated, not edited: `npm run schema`, as the README says.
  execFileSync(process.execPath, ["scripts/generate-schema.js"], { cwd: copy, stdio: "ignore" });
});

it("every face serves the new kind: the TypeScript class, the schema, the native plugin, the policy pack", () => {
  const printed = execFileSync(process.execPath, ["-r", "ts-node/register/transpile-only", "-e", FACES], { cwd: copy, encoding: "utf8", env: { ...process.env, TS_NODE_PROJECT: path.join(copy, "tsconfig.json") } });
  const faces = JSON.parse(printed.trim().split("\n").pop()!);
  expect(faces).toEqual({
    classGet: "function",
    schemaInputs: expect.arrayContaining(["name", "image", "env"]),
    nativeHandlers: ["check", "create", "diff", "read", "remove", "update"],
    dynamicHandlers: ["check", "create", "diff", "read", "remove", "update"],
    policyKind: "widget",
    policyDollarsPerHour: expect.any(Number),
  });
  expect(faces.policyDollarsPerHour).toBeGreaterThan(0);
});

it("every generic test list of the registry holds the new kind, and its checks of the definition pass", () => {
  // Transpile only: these suites are type-checked in the project's own run.
  writeFileSync(
    path.join(copy, "jest.widget.config.js"),
    `module.exports = { testEnvironment: "node", rootDir: __dirname, roots: ["<rootDir>/test"], testTimeout: 30000,
      transform: { "^.+\\\\.ts$": ["ts-jest", { tsconfig: "tsconfig.test.json", isolatedModules: true, diagnostics: false }] } };`,
  );
  const out = path.join(copy, "widget-report.json");
  const suites = GENERIC_SUITES.map((name) => `test/provider/${name}.test.ts`);
  const env = { ...process.env, JEST_WORKER_ID: undefined };
  try {
    execFileSync(process.execPath, [require.resolve("jest/bin/jest"), "--config", "jest.widget.config.js", "--ci", "--json", `--outputFile=${out}`, "-t", "Widget", ...suites], { cwd: copy, env, stdio: "ignore", timeout: 240_000 });
  } catch {
    // A failing Widget test exits non-zero; the report says which (asserted below).
  }
  const report = JSON.parse(readFileSync(out, "utf8")) as JestReport;
  const widgetTests = (suite: string) => report.testResults.find((r) => r.name.endsWith(`/${suite}.test.ts`))?.assertionResults.filter((a) => a.fullName.includes("Widget") && a.status !== "pending") ?? [];
  for (const suite of GENERIC_SUITES) expect([suite, widgetTests(suite).length > 0]).toEqual([suite, true]);
  // The definition's own rules hold, and its example is checked, created, read and deleted like
  // any kind's. Only the docs checks fail, and so show they saw it: the throwaway has no section
  // in docs/provider.md, which they ask of every kind. (Messages printed on a mismatch.)
  const failed = GENERIC_SUITES.flatMap((suite) => widgetTests(suite).filter((a) => a.status !== "passed").map((a) => ({ test: `${suite}: ${a.fullName}`, why: a.failureMessages.join(" ").slice(0, 600) })));
  expect(failed).toEqual([
    { test: "registry: Widget has every input named in the Inputs part of its docs section", why: expect.stringContaining('"image"') },
    { test: "outputs: docs/provider.md documents exactly the listed outputs Widget: the Outputs table is the list's", why: expect.stringContaining('no "### Outputs" under "## Widget"') },
  ]);
});
