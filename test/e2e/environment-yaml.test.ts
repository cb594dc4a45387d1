import { describeEnvironmentStack } from "./environment-stack";

jest.setTimeout(15 * 60_000);

/**
 * The environment resources from a Pulumi YAML program (test/e2e/programs/environment-yaml)
 * through the real engine and the native plugin: the cases of environment-stack.ts (those that
 * run in one face where it puts them), and `pulumi import` of each kind made outside the stack,
 * whose printed declarations, added to the program, preview with no change.
 */
describe("the environment resources from a Pulumi YAML stack", () => {
  describeEnvironmentStack("environment-yaml", "environment-yaml", "yaml", { importOutside: true });
});
