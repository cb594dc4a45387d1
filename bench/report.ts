/**
 * Renders bench/results/latest.json as the Markdown that docs/benchmarks.md holds between its
 * `<!-- figures:start -->` and `<!-- figures:end -->` markers.
 *
 *   node dist/bench/report.js            print it
 *   node dist/bench/report.js --write    replace the block in docs/benchmarks.md
 *
 * `npm run bench` never edits the docs by itself: a run on a busy machine should not replace
 * the record without someone looking at it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "../scripts/lib/root";

const RESULTS = path.join(REPO_ROOT, "bench", "results", "latest.json");
const DOC = path.join(REPO_ROOT, "docs", "benchmarks.md");
const START = "<!-- figures:start -->";
const END = "<!-- figures:end -->";

/** What report reads of results/latest.json (written by run.ts). */
interface ResultsFile {
  date: string;
  totalSeconds: number;
  machine: { cpus: number; cpuModel: string; memoryGiB: number; os: string; loadAverage: { atStart: number; atEnd: number } };
  versions: { [name: string]: string };
  table: Array<{ scenario: string; figure: string; measured: string; against: string | null; ratio: number | null; goal: string | null; status: string }>;
  errors: Array<{ scenario: string; message: string }>;
}

const cell = (text: unknown) => String(text ?? "").replace(/\|/g, "\\|");

function render(record: ResultsFile): string {
  const m = record.machine;
  const v = record.versions;
  const lines: string[] = [];
  lines.push(`Run of ${record.date.slice(0, 10)} (${record.date}), \`npm run bench\` in ${record.totalSeconds} s (set-up not included).`);
  lines.push("");
  lines.push(
    `- Machine: ${m.cpus} cores (${m.cpuModel}), ${m.memoryGiB} GiB memory, ${m.os}; 1-minute load ${m.loadAverage.atStart} at the start, ${m.loadAverage.atEnd} at the end`,
  );
  lines.push(
    `- Versions: Node ${v.node}, Pulumi CLI ${v.pulumiCli}, @pulumi/pulumi ${v["@pulumi/pulumi"]}, pulumi-compute ${v["pulumi-compute"]}, ` +
      `undici ${v.undici}, zod ${v.zod}, eventsource-parser ${v["eventsource-parser"]}; baselines and tools: eventsource ${v.eventsource}, autocannon ${v.autocannon}`,
  );
  lines.push("");
  lines.push("| Scenario | Figure | Measured | Against | Ratio | Goal | Status |");
  lines.push("| --- | --- | --- | --- | --- | --- | --- |");
  for (const row of record.table) {
    const status = row.status === "met" ? "met" : row.status === "missed" ? "**missed**" : "recorded";
    lines.push(
      `| ${cell(row.scenario)} | ${cell(row.figure)} | ${cell(row.measured)} | ${cell(row.against)} | ${row.ratio === null ? "" : row.ratio.toFixed(2)} | ${cell(row.goal)} | ${status} |`,
    );
  }
  if (record.errors.length) {
    lines.push("");
    for (const e of record.errors) lines.push(`- Crashed: ${e.scenario}: ${cell(e.message)}`);
  }
  return lines.join("\n");
}

function main() {
  const record = JSON.parse(fs.readFileSync(RESULTS, "utf8")) as ResultsFile;
  const block = render(record);
  if (!process.argv.includes("--write")) {
    process.stdout.write(`${block}\n`);
    return;
  }
  const doc = fs.readFileSync(DOC, "utf8");
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${DOC} has no ${START} … ${END} block`);
  fs.writeFileSync(DOC, `${doc.slice(0, from + START.length)}\n${block}\n${doc.slice(to)}`);
  process.stdout.write(`updated ${path.relative(process.cwd(), DOC)}\n`);
}

main();
