"use strict";
/**
 * Per-suite CPU, when COMPUTE_TEST_CPU_LOG names a file (jest.config.js loads this into every
 * suite; without the variable it does nothing). A suite's CPU is its worker's own (the suite's
 * code, the in-process emulators, transforms) plus its worker's reaped children's (the engine,
 * programs, providers, plugins, CLIs it started), read from /proc/self/stat (Linux) when the
 * suite starts and when it ends; the same worker's next start also ends the suite before it, so
 * its afterAll hooks count too. test/setup/suite-cpu-report.js turns the file into a table
 * (docs/benchmarks.md, "The test run's own time").
 */
const { appendFileSync, readFileSync } = require("node:fs");

const file = process.env.COMPUTE_TEST_CPU_LOG;
if (file) {
  const ticks = Number(process.env.COMPUTE_TEST_CLOCK_TICKS || 100);
  const cpu = () => {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // Fields after the command's closing parenthesis: utime, stime, cutime, cstime are the 12th-15th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { self: (Number(fields[11]) + Number(fields[12])) / ticks, children: (Number(fields[13]) + Number(fields[14])) / ticks };
  };
  const record = (event) =>
    appendFileSync(
      file,
      `${JSON.stringify({ event, pid: process.pid, at: Date.now(), suite: expect.getState().testPath, project: process.env.COMPUTE_EMULATOR_SHAPE || "default", ...cpu() })}\n`,
    );
  record("start");
  afterAll(() => record("end"));
}
