import { spawnSync } from "node:child_process";
import { costKindOf } from "../../policy/resources";
import { ROOT } from "../helpers/fixtures";

/**
 * The serialized providers exactly as `pulumi.dynamic.Resource` stores them in `__provider`,
 * made in a plain Node process from the built package (jest's module registry would change
 * what the serializer sees).
 */
function serializedProviders(): { pod: string; sandbox: string } {
  const script = `
    const { serializeFunction } = require("@pulumi/pulumi/runtime/closure/serializeClosure");
    const { Pod: { provider: podProvider }, Sandbox: { provider: sandboxProvider } } = require("./dist/provider/classes.js");
    Promise.all([podProvider, sandboxProvider].map((p) => serializeFunction(() => p, { allowSecrets: true })))
      .then(([pod, sandbox]) => process.stdout.write(JSON.stringify({ pod: pod.text, sandbox: sandbox.text })));`;
  const run = spawnSync(process.execPath, ["-e", script], { cwd: ROOT, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`serializing the providers failed:\n${run.stderr}`);
  return JSON.parse(run.stdout) as { pod: string; sandbox: string };
}

describe("which resources the cost policies price", () => {
  it("the native plugin's types and the dynamic resources' type tokens", () => {
    expect(costKindOf("compute:index:Pod", {})).toBe("pod");
    expect(costKindOf("compute:index:Sandbox", {})).toBe("sandbox");
    expect(costKindOf("pulumi-nodejs:dynamic/compute:Pod", {})).toBe("pod");
    expect(costKindOf("pulumi-nodejs:dynamic/compute:Sandbox", {})).toBe("sandbox");
  });

  it("a dynamic resource under the generic token, by the provider it was serialized with", () => {
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
