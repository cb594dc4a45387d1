/**
 * Two projects; jest prints each suite's project name, so a failure says which answer shape.
 * - `default`: every suite (unit, emulator HTTP, provider, CLI, and the end-to-end suites that
 *   drive the real Pulumi engine), against the emulator's seed shape (our reading of the API).
 * - `public-shape`: the suites whose clients talk to an in-process emulator, again, with every
 *   emulator answering as the public OpenAPI describes (COMPUTE_EMULATOR_SHAPE=public): what our
 *   clients must survive from the real service. `--selectProjects public-shape` runs only it.
 *   The provider behaviours of the end-to-end suites basic, changes and faults run there at the
 *   provider protocol (test/e2e/plugin-protocol.test.ts: the built plugin called as the engine
 *   calls it), not through the engine again: the same cases against the public shape, in
 *   seconds instead of minutes; what only the engine does does not depend on the answer shape.
 */
const common = {
  testEnvironment: "node",
  rootDir: __dirname,
  roots: ["<rootDir>/test"],
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.test.json", diagnostics: { warnOnly: false } }] },
};

module.exports = {
  // Global options: inside a project entry jest ignores them.
  testTimeout: 30000,
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
      // The engine suites cover these behaviours against the seed shape.
      testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/e2e/plugin-protocol\\.test\\.ts$"],
    },
    {
      ...common,
      displayName: "public-shape",
      setupFiles: ["<rootDir>/test/setup/public-shape.ts"],
      testMatch: [
        "<rootDir>/test/provider/**/*.test.ts",
        "<rootDir>/test/e2e/plugin-protocol.test.ts",
      ],
      // It runs the registry's generic suites in a copy of the project, in its own process.
      testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/provider/new-kind\\.test\\.ts$"],
    },
  ],
};
