#!/usr/bin/env node
"use strict";
/**
 * The per-suite CPU table of a run made with COMPUTE_TEST_CPU_LOG=<file> (test/setup/suite-cpu.js):
 *
 *   COMPUTE_TEST_CPU_LOG=/tmp/suite-cpu.log npm test
 *   node test/setup/suite-cpu-report.js /tmp/suite-cpu.log [rows]
 *
 * One line per suite, most CPU first: total, the worker's own, its children's CPU-seconds, wall
 * seconds, and the running share of the run's suite CPU.
 */
const { readFileSync } = require("node:fs");
const path = require("node:path");

const [file, rows = "40"] = process.argv.slice(2);
if (!file) {
  console.error("usage: node test/setup/suite-cpu-report.js <COMPUTE_TEST_CPU_LOG file> [rows]");
  process.exit(2);
}
const events = readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
const byWorker = new Map();
for (const event of events) byWorker.set(event.pid, [...(byWorker.get(event.pid) ?? []), event]);
const suites = [];
for (const list of byWorker.values()) {
  list.sort((a, b) => a.at - b.at);
  list.forEach((start, i) => {
    if (start.event !== "start") return;
    // A suite ends where its worker's next suite starts (its afterAll hooks included), else at its own end.
    const end = list.slice(i + 1).find((e) => e.event === "start") ?? list.slice(i + 1).find((e) => e.event === "end" && e.suite === start.suite);
    if (!end) return;
    // Named from the clone's test/ folder on, wherever the clone is.
    const name = start.suite.slice(start.suite.lastIndexOf(`${path.sep}test${path.sep}`) + 1) + (start.project === "default" ? "" : ` [${start.project}]`);
    suites.push({ name, self: end.self - start.self, children: end.children - start.children, wall: (end.at - start.at) / 1000 });
  });
}
suites.sort((a, b) => b.self + b.children - (a.self + a.children));
const total = suites.reduce((sum, s) => sum + s.self + s.children, 0);
console.log(`${suites.length} suites, ${(total / 60).toFixed(1)} CPU-minutes (the workers' own ${(suites.reduce((sum, s) => sum + s.self, 0) / 60).toFixed(1)})`);
console.log("  total    own  children   wall  share  suite");
let running = 0;
for (const s of suites.slice(0, Number(rows))) {
  running += s.self + s.children;
  console.log(
    [(s.self + s.children).toFixed(0).padStart(7), s.self.toFixed(0).padStart(6), s.children.toFixed(0).padStart(9), s.wall.toFixed(0).padStart(6), `${((100 * running) / total).toFixed(0)}%`.padStart(6), ` ${s.name}`].join(""),
  );
}
