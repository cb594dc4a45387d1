/**
 * What every program on the native plugin must do through the real engine, whatever its
 * language: the YAML program (test/e2e/yaml.test.ts), the Python example
 * (test/e2e/python.test.ts) and the Go example (test/e2e/go.test.ts) declare a pod with a
 * network volume and a sandbox from the same stack config (`volumeId`, `mountPath`, `startSsh`,
 * `idleTimeoutSeconds`, the secret `apiToken`) and export the same outputs, so one table of
 * cases drives them all.
 */
import { ComputeClient } from "../../sdk";
import { createE2EStack, noIds, type E2EStack } from "./harness";

export const API_TOKEN = "native-secret-token-42";

export type NativeOutputs = {
  podId: string;
  podStatus: string;
  sandboxId: string;
  sandboxState: string;
  appliedIdleTimeoutSeconds: number;
  [more: string]: unknown;
};

export interface NativeStack {
  e2e: E2EStack;
  /** The outputs of the last `up`. */
  last: NativeOutputs;
  upWith(config: Record<string, string>): Promise<{ out: NativeOutputs; summary: Record<string, number>; output: string }>;
  /** Volumes a case made outside the stack, as a user would: the stack's destroy must leave exactly these. */
  outsideVolumes: string[];
}

/**
 * The shared cases, in order, over one stack of `program` (a folder of test/e2e/programs, or an
 * absolute path);
 * `others` is how many resources the program declares besides the pod and the sandbox (the
 * stack itself included). Returns the stack for a language's own cases, which run after these
 * and before the final destroy.
 */
export function describeNativeStack(name: string, program: string, others: number, more: (stack: NativeStack) => void = () => undefined): void {
  const total = others + 2;
  const stack = { last: undefined as unknown as NativeOutputs, outsideVolumes: [] as string[] } as NativeStack;

  stack.upWith = async (config) => {
    for (const [key, value] of Object.entries(config)) await stack.e2e.stack.setConfig(key, { value });
    let output = "";
    const result = await stack.e2e.stack.up({ onOutput: (text) => (output += text) });
    const out = Object.fromEntries(Object.entries(result.outputs).map(([key, value]) => [key, value.value])) as NativeOutputs;
    return { out, summary: result.summary.resourceChanges as Record<string, number>, output };
  };

  beforeAll(async () => {
    stack.e2e = await createE2EStack(name, { program });
    await stack.e2e.stack.setConfig("apiToken", { value: API_TOKEN, secret: true });
  });
  afterAll(() => stack.e2e?.dispose());

  it("up creates the pod and the sandbox RUNNING, with nothing found on PATH", async () => {
    const { out, summary, output } = await stack.upWith({});
    expect(summary).toEqual({ create: total });
    expect(out).toMatchObject({ podStatus: "RUNNING", sandboxState: "RUNNING", appliedIdleTimeoutSeconds: 600 });
    // The language host, the plugin and the engine's other helpers all come from where
    // scripts/setup.sh puts them, so the engine has nothing to warn about.
    expect(output).not.toMatch(/from \$PATH/);
    const ids = await stack.e2e.stateIds();
    expect(ids.pod).toContain(out.podId);
    expect(ids.sandbox).toEqual([out.sandboxId]);
    expect(await stack.e2e.liveIds()).toEqual(ids);
    stack.last = out;
  });

  it("a secret config value reaches the pod and stays out of the state in plaintext", async () => {
    const client = new ComputeClient({ baseUrl: stack.e2e.emulator.url, apiKey: stack.e2e.emulator.apiKey, env: {} });
    const pod = await client.pods.get(stack.last.podId);
    await client.close();
    expect(pod.env).toMatchObject({ API_TOKEN: API_TOKEN });
    const state = await stack.e2e.stateText();
    expect(state).toContain(`"id":"${stack.last.podId}"`);
    expect(state).not.toContain(API_TOKEN);
    expect(state).not.toContain(stack.e2e.emulator.apiKey);
  });

  it("preview, refresh and preview again show no changes", async () => {
    expect((await stack.e2e.stack.preview()).changeSummary).toEqual({ same: total });
    const refresh = await stack.e2e.stack.refresh();
    expect(refresh.summary.resourceChanges).toEqual({ same: total });
    expect((await stack.e2e.stack.preview()).changeSummary).toEqual({ same: total });
  });

  it("changing the mount path updates the same pod in place", async () => {
    const { out, summary } = await stack.upWith({ mountPath: "/mnt/datasets" });
    expect(summary).toEqual({ same: total - 1, update: 1 });
    expect(out.podId).toBe(stack.last.podId);
    expect(out.podStatus).toBe("RUNNING");
  });

  it.each([
    ["startSsh", async () => ({ startSsh: "true" })],
    [
      "the network volume",
      async () => {
        // A second volume in the pod's data center, made outside the stack as a user would have.
        const client = new ComputeClient({ baseUrl: stack.e2e.emulator.url, apiKey: stack.e2e.emulator.apiKey, env: {} });
        const volume = await client.networkVolumes.create({ name: "datasets-tx-2", dataCenter: "US-TX-3", size: 50 });
        await client.close();
        stack.outsideVolumes.push(volume.id);
        return { volumeId: volume.id };
      },
    ],
  ])("changing %s replaces the pod: a new id, the old one gone from the service", async (_what, change) => {
    const { out, summary } = await stack.upWith(await change());
    expect(summary).toEqual({ same: total - 1, replace: 1 });
    expect(out.podId).not.toBe(stack.last.podId);
    expect(out.podStatus).toBe("RUNNING");
    const live = await stack.e2e.liveIds();
    expect(live.pod).toContain(out.podId);
    expect(live.pod).not.toContain(stack.last.podId);
    stack.last = out;
  });

  it("changing the sandbox's idle timeout updates it in place", async () => {
    const { out, summary } = await stack.upWith({ idleTimeoutSeconds: "900" });
    expect(summary).toEqual({ same: total - 1, update: 1 });
    expect(out.sandboxId).toBe(stack.last.sandboxId);
    expect(out.appliedIdleTimeoutSeconds).toBe(900);
    expect((await stack.e2e.stack.preview()).changeSummary).toEqual({ same: total });
    stack.last = out;
  });

  more(stack);

  it("destroy leaves nothing in the emulator but what was made outside the stack", async () => {
    await stack.e2e.stack.destroy();
    expect(await stack.e2e.liveIds()).toEqual({ ...noIds(), volume: [...stack.outsideVolumes].sort() });
    expect(await stack.e2e.stateIds()).toEqual(noIds());
  });
}
