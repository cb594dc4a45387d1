/**
 * Measured figures live in one place: the figures block of docs/benchmarks.md, which must be the
 * record in bench/results/latest.json (bench/report.ts renders it). Other documents link to that
 * page instead of quoting figures, which would drift with the next run.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";

const ROOT = path.resolve(__dirname, "../..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

interface Results {
  date: string;
  totalSeconds: number;
  table: Array<{ scenario: string; figure: string; measured: string; against: string | null; ratio: number | null; goal: string | null; status: string }>;
}

const cell = (text: unknown) => String(text ?? "").replace(/\|/g, "\\|");

function figuresBlock(): string {
  const doc = read("docs/benchmarks.md");
  const from = doc.indexOf("<!-- figures:start -->");
  const to = doc.indexOf("<!-- figures:end -->");
  expect(from).toBeGreaterThanOrEqual(0);
  expect(to).toBeGreaterThan(from);
  return doc.slice(from, to);
}

describe("docs/benchmarks.md quotes bench/results/latest.json", () => {
  const results = JSON.parse(read("bench/results/latest.json")) as Results;
  const block = figuresBlock();

  test("the run's date and total time", () => {
    expect(block).toContain(`Run of ${results.date.slice(0, 10)} (${results.date}), \`npm run bench\` in ${results.totalSeconds} s`);
  });

  test("every row of the results table, and no other", () => {
    const expected = results.table.map((row) => {
      const status = row.status === "met" ? "met" : row.status === "missed" ? "**missed**" : "recorded";
      const ratio = row.ratio === null ? "" : row.ratio.toFixed(2);
      return `| ${cell(row.scenario)} | ${cell(row.figure)} | ${cell(row.measured)} | ${cell(row.against)} | ${ratio} | ${cell(row.goal)} | ${status} |`;
    });
    const rows = block.split("\n").filter((line) => line.startsWith("| ") && !line.startsWith("| Scenario |") && !line.startsWith("| ---"));
    expect(rows).toEqual(expected);
  });
});

describe("the other documents link to docs/benchmarks.md instead of quoting its figures", () => {
  // A throughput, or a ratio written as `0.94×`: what the benchmarks measure.
  const FIGURE = /\d[\d.,]*\s*(req(uests)?\/s|lines\/s)|\b\d+\.\d+×/g;
  for (const file of ["README.md", "docs/provider.md", "docs/native-plugin.md", "docs/emulator.md", "docs/setup.md"]) {
    test(file, () => {
      expect(read(file).match(FIGURE) ?? []).toEqual([]);
    });
  }
});
