"use strict";
/**
 * Every test must reach an assertion on the path it ran (jest.config.js loads this into every
 * suite). A test whose only check sat in a helper that returns quietly when something is wrong
 * (the log stream of issue 45's audit, whose helper answered [] to a 404) passed with nothing
 * checked; jest now fails such a test with "Expected at least one assertion to be called".
 * A test that counts its own assertions (`expect.assertions(n)`) keeps its stricter count.
 * Not covered: `test.concurrent` cases, for which jest-circus runs no `beforeEach` (and counts
 * assertions across the cases running at once); the CLI suites use them, and their helpers
 * return results for the test to assert rather than asserting quietly.
 */
beforeEach(() => {
  expect.hasAssertions();
});
