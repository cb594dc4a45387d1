/**
 * Jest's test sequencer (jest.config.js): the longest suites start first, so the run does not end
 * with one long suite running alone while the other workers idle. Jest's own order does that only
 * from the durations it cached on this machine in an earlier run; a fresh clone (CI) has none, and
 * jest then starts the biggest files first, which are not the longest: the end-to-end suites wait
 * on the Pulumi engine for minutes with little code. So the suites known to be long come first, in
 * the order of ESTIMATE_SECONDS (measured on 2 cores, rounded; a stale figure only reorders), and
 * every other suite follows in jest's own order.
 */
const Sequencer = require("@jest/test-sequencer").default;
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");

/**
 * Seconds each suite took running alone-ish (2 workers on 2 cores, `npx jest --ci --json`; a
 * suite of both projects counts once per project). Only the order matters.
 */
const ESTIMATE_SECONDS = {
  "test/e2e/team-backend.test.ts": 290,
  "test/e2e/interrupted.test.ts": 270,
  "test/e2e/environment-ts.test.ts": 130,
  "test/e2e/first-steps.test.ts": 150,
  "test/e2e/environment-python.test.ts": 105,
  "test/e2e/environment-yaml.test.ts": 105,
  "test/e2e/examples.test.ts": 105,
  "test/e2e/plugin-protocol.test.ts": 80,
  "test/e2e/upgrade-typescript.test.ts": 75,
  "test/e2e/bad-input.test.ts": 60,
  "test/e2e/changes.test.ts": 60,
  "test/e2e/upgrade-yaml.test.ts": 50,
  "test/e2e/cost-gitops.test.ts": 58,
  "test/e2e/python.test.ts": 52,
  "test/e2e/go.test.ts": 50,
  "test/e2e/drift.test.ts": 47,
  "test/e2e/cost.test.ts": 47,
  "test/e2e/basic.test.ts": 45,
  "test/e2e/yaml.test.ts": 39,
  "test/cli/usage.test.ts": 23,
  "test/e2e/faults.test.ts": 22,
  "test/cli/hub.test.ts": 19,
  "test/e2e/python-layout.test.ts": 18,
  "test/e2e/import.test.ts": 17,
  "test/cli/sandbox-logs.test.ts": 13,
  "test/cli/ps.test.ts": 12,
  "test/provider/pod-lifecycle.test.ts": 11,
  "test/cli/sandbox.test.ts": 9,
};

class LongestFirst extends Sequencer {
  sort(tests) {
    const ordered = super.sort(tests);
    const estimate = (test) => ESTIMATE_SECONDS[path.relative(ROOT, test.path).split(path.sep).join("/")] ?? -1;
    // Array.prototype.sort is stable: suites without an estimate keep jest's order.
    return [...ordered].sort((a, b) => estimate(b) - estimate(a));
  }
}

module.exports = LongestFirst;
