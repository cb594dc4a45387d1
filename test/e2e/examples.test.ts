import { existsSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { ComputeClient } from "../../sdk";
import { createE2EStack, REPO_ROOT } from "./harness";

jest.setTimeout(10 * 60_000);

const examples = readdirSync(path.join(REPO_ROOT, "examples")).filter(
  (name) => name !== "demo" && existsSync(path.join(REPO_ROOT, "examples", name, "Pulumi.yaml")),
);

/**
 * Every example in examples/ (TypeScript programs on the dynamic resources, YAML on the native
 * plugin) runs as documented: up succeeds without the engine warning about a plugin found on
 * PATH, destroy leaves nothing.
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
      const state = await e2e.stateIds();
      expect(await e2e.liveIds()).toEqual(state);
      await e2e.stack.destroy();
      expect(await e2e.liveIds()).toEqual({ pods: [], sandboxes: [] });
    } finally {
      await e2e.dispose();
    }
  });
});
