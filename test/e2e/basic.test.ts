import { createE2EStack, type E2EStack } from "./harness";

jest.setTimeout(10 * 60_000);

const GPU_A5000 = "NVIDIA RTX A5000";

describe("up, preview, refresh, destroy through the real engine", () => {
  let e2e: E2EStack;
  beforeAll(async () => {
    e2e = await createE2EStack("basic");
  });
  afterAll(() => e2e?.dispose());

  it("up creates everything RUNNING; preview and refresh+preview then show no changes; destroy leaves nothing", async () => {
    await e2e.declare({
      pods: { trainer: { image: "pytorch:2.4", gpu: { id: GPU_A5000 }, ports: ["22/tcp"], startSsh: true } },
      sandboxes: { scratch: { image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 2, containerDiskInGb: 5 }, idleTimeoutSeconds: 30 } },
    });
    await e2e.stack.setConfig("e2e:secretEnv", { value: JSON.stringify({ HF_TOKEN: "hf-secret-token-123" }), secret: true });
    const up = await e2e.stack.up({ onOutput: (s) => process.stderr.write(s) });
    expect(up.summary.result).toBe("succeeded");
    const pods = up.outputs.podOutputs.value as Record<string, { status: string; id: string }>;
    const sandboxes = up.outputs.sandboxOutputs.value as Record<string, { state: string; appliedIdleTimeoutSeconds: number }>;
    expect(pods.trainer.status).toBe("RUNNING");
    expect(sandboxes.scratch).toMatchObject({ state: "RUNNING", appliedIdleTimeoutSeconds: 90 });

    const preview = await e2e.stack.preview();
    expect(preview.changeSummary).toEqual({ same: 3 });

    await e2e.stack.refresh();
    const afterRefresh = await e2e.stack.preview();
    expect(afterRefresh.changeSummary).toEqual({ same: 3 });

    const state = e2e.stateFilesText();
    expect(state).toContain(`"id":"${pods.trainer.id}"`); // the state really is here
    expect(state).not.toContain(e2e.emulator.apiKey);
    expect(state).not.toContain("hf-secret-token-123");
    expect(state).toContain('"additionalSecretOutputs"');

    await e2e.stack.destroy();
    const res = await fetch(`${e2e.emulator.url}/v2/pods`, { headers: { authorization: `Bearer ${e2e.emulator.apiKey}` } });
    expect(((await res.json()) as { pods: unknown[] }).pods).toEqual([]);
    const sb = await fetch(`${e2e.emulator.url}/v2/sandboxes`, { headers: { authorization: `Bearer ${e2e.emulator.apiKey}` } });
    expect(((await sb.json()) as { sandboxes: unknown[] }).sandboxes).toEqual([]);
  });
});
