import { describeEnvironmentStack } from "./environment-stack";

jest.setTimeout(15 * 60_000);

/**
 * The environment resources from a TypeScript program (test/e2e/programs/environment-ts) through
 * the real engine: the package's dynamic classes (`new NetworkVolume(...)`, …), run by the
 * engine's Node.js host and the dynamic-provider host. The cases of environment-stack.ts, those
 * that run in one face where it puts them; `pulumi import` does not reach dynamic resources
 * (docs/provider.md), so it is the YAML suite's.
 */
describe("the environment resources from a TypeScript stack (dynamic classes)", () => {
  describeEnvironmentStack("environment-ts", "environment-ts", "typescript");
});
