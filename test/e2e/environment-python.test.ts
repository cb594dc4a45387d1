import { describeEnvironmentStack } from "./environment-stack";

jest.setTimeout(15 * 60_000);

/**
 * The environment resources from a Python program (test/e2e/programs/environment-python)
 * through the real engine: the Python language host, the generated `pulumi_compute` SDK in the
 * virtualenv scripts/setup-python.sh makes, and the native plugin. The cases of
 * environment-stack.ts, those that run in one face where it puts them (`pulumi import` is the YAML
 * suite's: the plugin's side is the same).
 */
describe("the environment resources from a Python stack", () => {
  describeEnvironmentStack("environment-python", "environment-python", "python");
});
