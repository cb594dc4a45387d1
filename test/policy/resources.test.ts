import { spawnSync } from "node:child_process";
import { costKindOf } from "../../policy/resources";
import { ROOT } from "../helpers/fixtures";

/**
 * The `__provider` texts the resource classes register (provider/forwarder.ts), from the built
 * package in a plain Node process, as a program makes them.
 */
function serializedProviders(): { pod: string; sandbox: string } {
  const script = `
    const { providerText } = require("./dist/provider/forwarder.js");
    const { dynamicToken } = require("./dist/contract/tokens.js");
    process.stdout.write(JSON.stringify({ pod: providerText(dynamicToken("Pod")), sandbox: providerText(dynamicToken("Sandbox")) }));`;
  const run = spawnSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`making the providers' texts failed:\n${run.stderr}`);
  return JSON.parse(run.stdout) as { pod: string; sandbox: string };
}

describe("which resources the cost policies price", () => {
  it("the native plugin's types and the dynamic resources' type tokens", () => {
    expect(costKindOf("compute:index:Pod", {})).toBe("pod");
    expect(costKindOf("compute:index:Sandbox", {})).toBe("sandbox");
    expect(costKindOf("pulumi-nodejs:dynamic/compute:Pod", {})).toBe("pod");
    expect(costKindOf("pulumi-nodejs:dynamic/compute:Sandbox", {})).toBe("sandbox");
  });

  it("a dynamic resource under the generic token, by the provider text it recorded", () => {
    const { pod, sandbox } = serializedProviders();
    expect(costKindOf("pulumi-nodejs:dynamic:Resource", { __provider: pod })).toBe("pod");
    expect(costKindOf("pulumi-nodejs:dynamic:Resource", { __provider: sandbox })).toBe("sandbox");
  });

  it("not another package's dynamic resources, nor other types", () => {
    expect(costKindOf("pulumi-nodejs:dynamic:Resource", { __provider: 'with({ kind: "pod" }) { require("someone-else") }' })).toBeUndefined();
    expect(costKindOf("pulumi-nodejs:dynamic:Resource", {})).toBeUndefined();
    expect(costKindOf("aws:s3/bucket:Bucket", { __provider: "pulumi-compute/provider-runtime" })).toBeUndefined();
  });
});
