import { existsSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { ComputeClient } from "../../sdk";
import { createE2EStack, noIds, REPO_ROOT } from "./harness";

jest.setTimeout(10 * 60_000);

/**
 * Examples a suite of their own runs in place, through a whole storyline that includes this
 * one's (up, what the state holds exists, destroy leaves nothing): an engine run less here each.
 */
const RUN_IN_PLACE_BY = { "python-stack": "test/e2e/python.test.ts" } as Record<string, string>;

const examples = readdirSync(path.join(REPO_ROOT, "examples")).filter(
  (name) => name !== "demo" && !RUN_IN_PLACE_BY[name] && existsSync(path.join(REPO_ROOT, "examples", name, "Pulumi.yaml")),
);

/** The kinds an environment example makes one of each (beside its pods). */
const ENVIRONMENT_KINDS = ["volume", "template", "registry credential", "ssh key", "endpoint"] as const;

/**
 * Every example in examples/ (TypeScript programs on the dynamic resources, YAML on the native
 * plugin, Python and Go on the generated SDKs) runs as documented: up succeeds without the engine
 * warning about a plugin found on PATH, what the state holds exists, and destroy leaves the
 * account as it found it (no pod or sandbox; the fixture's volumes, templates, credentials, SSH
 * keys and endpoints, and nothing else).
 */
describe.each(examples)("examples/%s", (name) => {
  it("comes up against the emulator and destroys cleanly", async () => {
    const e2e = await createE2EStack(`ex-${name}`.slice(0, 40), { program: path.join(REPO_ROOT, "examples", name) });
    let output = "";
    const onOutput = (text: string) => (output += text);
    try {
      if (name === "adopt-existing-pod") {
        const client = new ComputeClient({ baseUrl: e2e.emulator.url, apiKey: e2e.emulator.apiKey, env: {} });
        const pod = await client.pods.create({ name: "legacy-web", image: "nginx:1.27", cpu: { id: "cpu3c", vcpuCount: 2 } });
        await client.close();
        await e2e.stack.setConfig("existingPodId", { value: pod.id });
        await e2e.stack.setConfig("existingPodName", { value: "legacy-web" });
        const up = await e2e.stack.up({ onOutput });
        expect(up.outputs.podId.value).toBe(pod.id);
      } else {
        const up = await e2e.stack.up({ onOutput });
        expect(up.summary.result).toBe("succeeded");
      }
      expect(output).not.toMatch(/from \$PATH/);
      // What the state holds exists, and nothing else of any kind (the fixture's own left out).
      const state = await e2e.stateIds();
      expect(await e2e.liveIds()).toEqual(state);
      if (name.startsWith("environment")) expect(ENVIRONMENT_KINDS.map((kind) => state[kind]!.length)).toEqual(ENVIRONMENT_KINDS.map(() => 1));
      await e2e.stack.destroy();
      expect(await e2e.liveIds()).toEqual(noIds());
    } finally {
      await e2e.dispose();
    }
  });
});
