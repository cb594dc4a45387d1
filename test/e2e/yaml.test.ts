import { billingCases, describeNativeStack } from "./native-stack";

jest.setTimeout(15 * 60_000);

/**
 * A Pulumi YAML program (test/e2e/programs/yaml-stack) through the real engine: the YAML language
 * host and the native `compute` plugin, found as scripts/setup.sh leaves them (hosts next to
 * `pulumi`, the plugin in the Pulumi home). Beside the pod and the sandbox: the stack.
 */
describe("a Pulumi YAML stack through the native plugin", () => {
  describeNativeStack("yaml", "yaml-stack", 1, billingCases);
});
