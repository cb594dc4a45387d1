"use strict";
/**
 * Renders bench/results/latest.json as the Markdown that docs/benchmarks.md holds between its
 * `<!-- figures:start -->` and `<!-- figures:end -->` markers.
 *
 *   node bench/report.js            print it
 *   node bench/report.js --write    replace the block in docs/benchmarks.md
 *
 * `npm run bench` never edits the docs by itself: a run on a busy machine should not replace
 * the record without someone looking at it.
 */
const fs = require("node:fs");
const path = require("node:path");

const RESULTS = path.join(__dirname, "results", "latest.json");
const DOC = path.join(__dirname, "..", "docs", "benchmarks.md");
const START = "<!-- figures:start -->";
const END = "<!-- figures:end -->";

const cell = (text) => String(text ?? "").replace(/\|/g, "\\|");

function render(record) {
  const m = record.machine;
  const v = record.versions;
  const lines = [];
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
  const record = JSON.parse(fs.readFileSync(RESULTS, "utf8"));
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
