/**
 * Two projects; jest prints each suite's project name, so a failure says which answer shape.
 * - `default`: every suite (unit, emulator HTTP, provider, CLI, provider protocol, and the
 *   end-to-end suites that drive the real Pulumi engine), against the emulator's seed shape (our
 *   reading of the API).
 * - `public-shape`: the suites whose clients talk to an in-process emulator, again, with every
 *   emulator answering as the public OpenAPI describes (COMPUTE_EMULATOR_SHAPE=public): what our
 *   clients must survive from the real service. `--selectProjects public-shape` runs only it.
 * Every provider behaviour of the end-to-end suites basic, changes and faults runs at the
 * provider protocol (test/e2e/plugin-protocol.test.ts: the built plugin called over gRPC as the
 * engine calls it), in both projects, so against both answer shapes, in seconds. The engine
 * suites keep what only the engine shows (the state and the secrets in it, a diff turned into an
 * update or a replace step and recorded, a failed create recorded and resumed by the next `up`),
 * on a few representative cases, in `default` only: that part does not depend on the answer shape.
 * Every kind's whole change table, its secrets and its delete run at the protocol too, in both
 * projects (test/e2e/every-kind-protocol.test.ts).
 */
const common = {
  testEnvironment: "node",
  // Every test reaches an assertion (test/setup/every-test-asserts.js); per-suite CPU when
  // COMPUTE_TEST_CPU_LOG names a file (docs/benchmarks.md, "The test run's own time").
  setupFilesAfterEnv: ["<rootDir>/test/setup/every-test-asserts.js", "<rootDir>/test/setup/suite-cpu.js"],
  rootDir: __dirname,
  roots: ["<rootDir>/test"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.test.json", diagnostics: { warnOnly: false } }] },
};

module.exports = {
  // Global options: inside a project entry jest ignores them.
  testTimeout: 30000,
  // A worker that holds more than this after a suite is replaced by a fresh one. Without it a
  // worker grew to 600-800 MB (mostly garbage V8 had not collected), and freeing that heap at
  // the end of the run took longer than jest's 500 ms, so jest printed "a worker process has
  // failed to exit gracefully" although no handle was left open (docs/benchmarks.md, "The test
  // run's own time"). Two full runs with it: no such message.
  workerIdleMemoryLimit: "300MB",
  // Once, before any suite: builds dist/ when a source is newer than its output (the CLI,
  // binary and serialization suites run the built package), and installs this clone's plugins
  // into the run's Pulumi home, which every end-to-end stack then shares (test/setup/global.ts).
  globalSetup: "<rootDir>/test/setup/global.ts",
  globalTeardown: "<rootDir>/test/setup/teardown.ts",
  // The long suites first, whatever jest remembers (test/setup/sequencer.js).
  testSequencer: "<rootDir>/test/setup/sequencer.js",
  // Four suites at a time on a 2-core machine (jest's default there is one): the end-to-end
  // suites spend much of their time waiting on the engine and the emulator's stages, so four
  // keep both cores busy (measured: 2 workers 717 s, 4 workers 615 s of jest, with the same
  // CPU time; more only adds contention). On more cores, half of them, and never fewer than four.
  maxWorkers: Math.max(4, Math.floor(require("node:os").availableParallelism() / 2)),
  projects: [
    {
      ...common,
      displayName: "default",
      testMatch: ["**/*.test.ts"],
      // Every suite, the provider protocol's included: it holds the provider behaviours of the
      // engine suites basic, changes and faults, which keep only what the engine shows.
      testPathIgnorePatterns: ["/node_modules/"],
    },
    {
      ...common,
      displayName: "public-shape",
      setupFiles: ["<rootDir>/test/setup/public-shape.ts"],
      testMatch: [
        "<rootDir>/test/provider/**/*.test.ts",
        "<rootDir>/test/e2e/plugin-protocol.test.ts",
        "<rootDir>/test/e2e/every-kind-protocol.test.ts",
      ],
      // It runs the registry's generic suites in a copy of the project, in its own process.
      testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/provider/new-kind\\.test\\.ts$"],
    },
  ],
};
