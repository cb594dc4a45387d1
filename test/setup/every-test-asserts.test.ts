/**
 * The suite's guard against tests that check nothing (every-test-asserts.js): run by jest, as
 * the suites are, over a file with a test that only calls a quiet helper.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { ROOT } from "../helpers/fixtures";

it("fails a test that reaches no assertion, and passes those that do", () => {
  const config = {
    rootDir: path.join(__dirname, "fixtures", "asserts"),
    testMatch: ["**/*.fixture.js"],
    testEnvironment: "node",
    setupFilesAfterEnv: [path.join(__dirname, "every-test-asserts.js")],
    transform: {},
  };
  const run = spawnSync(process.execPath, [path.join(ROOT, "node_modules", ".bin", "jest"), "--ci", "--json", "--config", JSON.stringify(config)], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  const report = JSON.parse(run.stdout) as { testResults: Array<{ assertionResults: Array<{ title: string; status: string; failureMessages: string[] }> }> };
  const results = report.testResults.flatMap((file) => file.assertionResults);
  expect(results.map(({ title, status }) => [title, status])).toEqual([
    ["checks something", "passed"],
    ["checks through a helper that asserts", "passed"],
    ["only calls a helper", "failed"],
  ]);
  expect(results[2]!.failureMessages.join("\n")).toContain("Expected at least one assertion to be called");
});
