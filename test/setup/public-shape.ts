/**
 * Setup file of the `public-shape` jest project (jest.config.js): every emulator its suites
 * start in-process answers in the public shape (emulator/shape, docs/emulator.md "Answer
 * shapes"), so the provider and end-to-end suites also run against answers as the real service
 * may give them. Jest gives each test file its own copy of process.env, so this never reaches
 * the suites of the default project.
 */
process.env.COMPUTE_EMULATOR_SHAPE = "public";
