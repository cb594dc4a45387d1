/**
 * `npm run bench` (through scripts/bench.sh, which sets up the clone and the engine first):
 * runs every scenario of issue #7, prints one table of figures against their goals, and writes
 * bench/results/latest.json. A missed goal is reported as "missed", never as a failure; the
 * exit code is non-zero only when a scenario crashed.
 *
 *   npm run bench                          every scenario (writes results/latest.json)
 *   npm run bench -- logs emulator         some of them (writes results/partial.json.tmp)
 *   npm run bench -- --repeats 1 fleet     fewer repeats of the fleet pair (default 3)
 *
 * It is TypeScript in the package's build (tsconfig.json), so a change to the SDK, the emulator
 * or the engine helper it shares with the end-to-end suites (scripts/lib/engine.ts) that breaks
 * it fails the build; scripts/bench.sh builds, then runs dist/bench/run.js.
 *
 * Scenario names: fleet (1, 2 and 4), baseline (2), ratelimit (3), logs (5), emulator (6),
 * provider (7), native (8), scale (9), clusters (10), readiness (11), fastpath (12). docs/benchmarks.md says what each does and holds the latest figures.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import Table from "cli-table3";
import { disposeFleetContext } from "./lib/fleet-context";
import { pulumiCommand } from "../scripts/lib/engine";
import { log, REPO_ROOT, round, type Row, type ScenarioResult } from "./lib/common";
import * as baseline from "./scenarios/baseline";
import * as clusters from "./scenarios/clusters";
import * as emulatorLoad from "./scenarios/emulator-load";
import * as fastPath from "./scenarios/fast-path";
import * as fleet from "./scenarios/fleet";
import * as logs from "./scenarios/logs";
import * as native from "./scenarios/native";
import * as providerRss from "./scenarios/provider-rss";
import * as ratelimit from "./scenarios/ratelimit";
import * as readiness from "./scenarios/readiness";
import * as scale from "./scenarios/scale";

interface Scenario {
  name: string;
  title: string;
  run(options: { repeats: number }): Promise<ScenarioResult>;
  /** Whether it runs `pulumi` (and so needs COMPUTE_PULUMI_ROOT). */
  engine: boolean;
}

const SCENARIOS: Scenario[] = [
  { name: "fleet", title: "Scenarios 1, 2 and 4: fleet up, the provider's API calls, state size", run: fleet.run, engine: true },
  { name: "baseline", title: "Scenario 2: the naive baseline, and 30 s provisioning", run: baseline.run, engine: true },
  { name: "ratelimit", title: "Scenario 3: under a rate limit", run: ratelimit.run, engine: true },
  { name: "logs", title: "Scenario 5: log streaming", run: logs.run, engine: false },
  { name: "emulator", title: "Scenario 6: the emulator under load", run: emulatorLoad.run, engine: false },
  { name: "provider", title: "Scenario 7: the provider process", run: providerRss.run, engine: true },
  { name: "native", title: "Scenario 8: the native plugin against the dynamic resources", run: native.run, engine: true },
  { name: "scale", title: "Scenario 9: fleet scale, 10 to 1000 resources", run: scale.run, engine: true },
  { name: "fastpath", title: "Scenario 12: PULUMI_SKIP_CHECKPOINTS=true and a kill -9 of the engine half-way through an up", run: fastPath.run, engine: true },
  { name: "clusters", title: "Scenario 10: waiting for clusters, in API calls", run: clusters.run, engine: false },
  { name: "readiness", title: "Scenario 11: readiness probes, RUNNING to usable and their API calls", run: readiness.run, engine: false },
];

/** Every key of the results file, in order, so its shape does not depend on what ran. */
const RESULT_KEYS = ["fleetUp", "apiCalls", "apiCallsBaseline", "rateLimit", "stateSize", "logStreaming", "emulator", "providerProcess", "nativeVsDynamic", "scale", "fastPath", "clusters", "readiness"];

function parseArgs(argv: string[]): { selected: string[]; all: boolean; repeats: number } {
  const selected: string[] = [];
  let repeats = 3;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--repeats") repeats = Number(argv[++i]);
    else if (SCENARIOS.some((s) => s.name === argv[i])) selected.push(argv[i]!);
    else throw new Error(`unknown argument "${argv[i]}"; scenarios: ${SCENARIOS.map((s) => s.name).join(", ")}; option: --repeats N`);
  }
  if (!(Number.isInteger(repeats) && repeats >= 1)) throw new Error("--repeats must be an integer >= 1");
  return { selected: selected.length ? selected : SCENARIOS.map((s) => s.name), all: selected.length === 0, repeats };
}

function machine(loadAtStart: number) {
  const cpuinfo = fs.readFileSync("/proc/cpuinfo", "utf8");
  return {
    cpus: os.availableParallelism(),
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? "unknown",
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    // 1-minute load average before and after: other work on the machine skews every timing.
    loadAverage: { atStart: round(loadAtStart, 2), atEnd: round(os.loadavg()[0], 2) },
  };
}

async function versions() {
  const pkg = (name: string) => (require(`${name}/package.json`) as { version: string }).version;
  const command = await pulumiCommand().catch(() => undefined);
  return {
    node: process.version,
    pulumiCli: command?.version ? String(command.version) : "unknown",
    "@pulumi/pulumi": pkg("@pulumi/pulumi"),
    "pulumi-compute": (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version,
    undici: pkg("undici"),
    zod: pkg("zod"),
    "eventsource-parser": pkg("eventsource-parser"),
    eventsource: pkg("eventsource"),
    autocannon: pkg("autocannon"),
  };
}

function printTable(rows: Row[]): void {
  const table = new Table({
    head: ["Scenario", "Figure", "Measured", "Against", "Ratio", "Goal", "Status"],
    colWidths: [14, 60, 16, 28, 8, 14, 9],
    wordWrap: true,
    style: { head: [], border: [] },
  });
  for (const row of rows) {
    table.push([
      row.scenario,
      row.figure,
      row.value,
      row.reference ?? "",
      row.ratio === undefined || row.ratio === null ? "" : row.ratio.toFixed(2),
      row.goal || "",
      row.met === null || row.met === undefined ? "record" : row.met ? "met" : "missed",
    ]);
  }
  process.stdout.write(`${table.toString()}\n`);
}

async function main() {
  const { selected, all, repeats } = parseArgs(process.argv.slice(2));
  if (!process.env.COMPUTE_PULUMI_ROOT && selected.some((name) => SCENARIOS.find((s) => s.name === name)!.engine)) {
    throw new Error("COMPUTE_PULUMI_ROOT is not set: run `npm run bench` (it builds or reuses the Pulumi engine), or set it to the engine root scripts/setup.sh prints");
  }
  const started = performance.now();
  const loadAtStart = os.loadavg()[0];
  if (loadAtStart > 0.5) log(`note: the machine is busy (1-minute load ${loadAtStart.toFixed(2)}); timings will suffer`);
  const results: Record<string, unknown> = Object.fromEntries(RESULT_KEYS.map((k) => [k, null]));
  const rows: Row[] = [];
  const errors: Array<{ scenario: string; message: string }> = [];
  try {
    for (const scenario of SCENARIOS.filter((s) => selected.includes(s.name))) {
      log(`— ${scenario.title}`);
      const scenarioStarted = performance.now();
      try {
        const out = await scenario.run({ repeats });
        Object.assign(results, out.results);
        rows.push(...out.rows);
      } catch (caught) {
        const error = caught as Error;
        log(`${scenario.name} crashed: ${error.stack ?? error}`);
        errors.push({ scenario: scenario.name, message: String(error.message ?? error).split("\n")[0] });
        // Its stack may hold resources: start the next scenario from a new stack and emulator.
        await disposeFleetContext().catch((e: Error) => log(`cleanup: ${e.message}`));
      }
      log(`  (${((performance.now() - scenarioStarted) / 1000).toFixed(0)} s)`);
    }
  } finally {
    await disposeFleetContext().catch((error: Error) => log(`cleanup: ${error.message}`));
  }

  // The table reads scenario by scenario.
  rows.sort((a, b) => a.scenario.localeCompare(b.scenario, "en", { numeric: true }));
  const totalSeconds = (performance.now() - started) / 1000;
  const record = {
    issue: 7,
    date: new Date().toISOString(),
    machine: machine(loadAtStart),
    versions: await versions(),
    scenariosRun: selected,
    totalSeconds: round(totalSeconds, 0),
    results,
    table: rows.map((r) => ({
      scenario: r.scenario,
      figure: r.figure,
      measured: r.value,
      against: r.reference ?? null,
      ratio: r.ratio ?? null,
      goal: r.goal || null,
      status: r.met === null || r.met === undefined ? "record" : r.met ? "met" : "missed",
    })),
    errors,
  };
  const file = path.join(REPO_ROOT, "bench", "results", all ? "latest.json" : "partial.json.tmp");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);

  printTable(rows);
  const missed = rows.filter((r) => r.met === false).length;
  process.stdout.write(
    `${rows.length} figures: ${rows.filter((r) => r.met === true).length} met, ${missed} missed, ` +
      `${rows.filter((r) => r.met === null || r.met === undefined).length} recorded; ${errors.length} scenario(s) crashed. ` +
      `Bench time ${totalSeconds.toFixed(0)} s. Written to ${path.relative(process.cwd(), file)}\n`,
  );
  if (errors.length) {
    for (const e of errors) process.stdout.write(`crashed: ${e.scenario}: ${e.message}\n`);
    process.exitCode = 1;
  }
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
