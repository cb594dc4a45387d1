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
 * Seconds each suite took in a full `npm test -- --json` (four workers on 2 cores, 2026-11-27; a
 * suite of both projects counts the sum of its two runs). Only the order matters: a suite missing
 * here starts after every suite listed, so a long new suite belongs here.
 */
const ESTIMATE_SECONDS = {
  "test/e2e/team-backend.test.ts": 589,
  "test/e2e/interrupted.test.ts": 543,
  "test/e2e/first-steps.test.ts": 294,
  "test/e2e/examples.test.ts": 287,
  "test/e2e/environment-ts.test.ts": 274,
  "test/e2e/upgrade-typescript.test.ts": 208,
  "test/e2e/go.test.ts": 176,
  "test/e2e/environment-yaml.test.ts": 171,
  "test/e2e/cluster.test.ts": 149,
  "test/e2e/upgrade-yaml.test.ts": 147,
  "test/e2e/plugin-protocol.test.ts": 144,
  "test/e2e/every-kind-protocol.test.ts": 140,
  "test/e2e/environment-python.test.ts": 129,
  "test/e2e/basic.test.ts": 116,
  "test/e2e/cost-gitops.test.ts": 108,
  "test/e2e/readiness.test.ts": 107,
  "test/e2e/bad-input.test.ts": 107,
  "test/e2e/cost.test.ts": 99,
  "test/e2e/credentials.test.ts": 97,
  "test/e2e/changes.test.ts": 88,
  "test/e2e/python.test.ts": 87,
  "test/e2e/drift.test.ts": 86,
  "test/e2e/yaml.test.ts": 84,
  "test/provider/cluster.test.ts": 62,
  "test/provider/readiness.test.ts": 59,
  "test/e2e/faults.test.ts": 56,
  "test/e2e/python-layout.test.ts": 55,
  "test/e2e/import.test.ts": 45,
  "test/cli/usage.test.ts": 40,
  "test/e2e/cluster-python.test.ts": 39,
  "test/provider/new-kind.test.ts": 37,
  "test/cli/sandbox-logs.test.ts": 31,
  "test/cli/hub.test.ts": 28,
  "test/cli/ps.test.ts": 26,
  "test/provider/pod-lifecycle.test.ts": 24,
  "test/provider/lookups.test.ts": 20,
  "test/provider/credentials.test.ts": 17,
  "test/provider/native/server.test.ts": 13,
  "test/cli/sandbox.test.ts": 13,
  "test/provider/native/get-secrets.test.ts": 11,
  "test/emulator/persistence.test.ts": 11,
  "test/provider/run-reads.test.ts": 11,
  "test/provider/environment.test.ts": 9,
  "test/provider/sandbox.test.ts": 9,
  "test/provider/every-kind.test.ts": 9,
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
