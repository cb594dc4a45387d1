import { existsSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { resourceByToken } from "../../provider/resources";
import { ComputeClient, fingerprintOf } from "../../sdk";
import { createE2EStack, noIds, REPO_ROOT, type E2EStack } from "./harness";

jest.setTimeout(10 * 60_000);

const examples = readdirSync(path.join(REPO_ROOT, "examples")).filter(
  (name) => name !== "demo" && existsSync(path.join(REPO_ROOT, "examples", name, "Pulumi.yaml")),
);

/** The kinds besides pods and sandboxes (harness `liveIds`) that an example may make. */
const ENVIRONMENT_KINDS = ["volume", "template", "registry credential", "ssh key", "endpoint"] as const;
type EnvironmentIds = Record<(typeof ENVIRONMENT_KINDS)[number], string[]>;

/**
 * What the account holds of each environment kind, by id (an SSH key by its fingerprint): the
 * fixture's own included, so that a destroy can be held to leaving exactly what it found.
 */
async function liveEnvironment(e2e: E2EStack): Promise<EnvironmentIds> {
  const get = async <T>(apiPath: string): Promise<T> => {
    const response = await fetch(`${e2e.emulator.url}${apiPath}`, { headers: { authorization: `Bearer ${e2e.emulator.apiKey}` } });
    return (await response.json()) as T;
  };
  const ids = (items: Array<{ id: string }>) => items.map((item) => item.id).sort();
  return {
    volume: ids((await get<{ networkVolumes: Array<{ id: string }> }>("/v2/network-volumes")).networkVolumes),
    template: ids((await get<{ templates: Array<{ id: string }> }>("/v2/templates")).templates),
    "registry credential": ids((await get<{ registries: Array<{ id: string }> }>("/v2/registries")).registries),
    "ssh key": (await get<{ keys: string[] }>("/v2/account/ssh-keys")).keys.map(fingerprintOf).sort(),
    endpoint: ids((await get<{ endpoints: Array<{ id: string }> }>("/v2/serverless")).endpoints),
  };
}

/** The environment resources the stack's state holds, by kind (either face's type token). */
async function stateEnvironment(e2e: E2EStack): Promise<EnvironmentIds> {
  const { deployment } = (await e2e.stack.exportStack()) as { deployment: { resources?: Array<{ type: string; id?: string }> } };
  const out = Object.fromEntries(ENVIRONMENT_KINDS.map((kind) => [kind, [] as string[]])) as EnvironmentIds;
  for (const resource of deployment.resources ?? []) {
    const kind = resourceByToken(resource.type)?.kind as keyof EnvironmentIds | undefined;
    if (kind && kind in out && resource.id) out[kind].push(resource.id);
  }
  return out;
}

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
      const before = await liveEnvironment(e2e);
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
      const live = await liveEnvironment(e2e);
      const made = await stateEnvironment(e2e);
      // The environment examples make one of each kind.
      if (name.startsWith("environment")) expect(Object.values(made).map((ids) => ids.length)).toEqual(ENVIRONMENT_KINDS.map(() => 1));
      for (const [kind, ids] of Object.entries(made)) {
        expect({ kind, missing: ids.filter((id) => !live[kind as keyof EnvironmentIds].includes(id)) }).toEqual({ kind, missing: [] });
      }
      await e2e.stack.destroy();
      expect(await e2e.liveIds()).toEqual(noIds());
      expect(await liveEnvironment(e2e)).toEqual(before);
    } finally {
      await e2e.dispose();
    }
  });
});
