import { createE2EStack, type E2EStack } from "./harness";
import { GPU, KEYS } from "../helpers/fixtures";

jest.setTimeout(10 * 60_000);

const GPU_A5000 = GPU.a5000;
/** Another credential of the same account in the emulator's fixture (a console session). */
const ROTATED_KEY = KEYS.sessionDev;

describe("up, preview, refresh, destroy through the real engine", () => {
  let e2e: E2EStack;
  beforeAll(async () => {
    e2e = await createE2EStack("basic");
  });
  afterAll(() => e2e?.dispose());

  it("up creates everything RUNNING; preview and refresh+preview show no changes; no secret in state; a rotated key works; destroy leaves nothing", async () => {
    await e2e.declare({
      pods: { trainer: { image: "pytorch:2.4", gpu: { id: GPU_A5000 }, ports: ["22/tcp", "8888/http"], startSsh: true, startJupyter: true } },
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

    const live = await (await fetch(`${e2e.emulator.url}/v2/pods/${pods.trainer.id}`, { headers: { authorization: `Bearer ${e2e.emulator.apiKey}` } })).json();
    const jupyterPassword = (live as { env: Record<string, string> }).env.JUPYTER_PASSWORD;
    expect(jupyterPassword).toEqual(expect.any(String));
    const state = await e2e.stateText();
    expect(state).toContain(`"id":"${pods.trainer.id}"`); // the state really is here
    expect(state).not.toContain(e2e.emulator.apiKey);
    expect(state).not.toContain("hf-secret-token-123");
    expect(state).not.toContain(jupyterPassword);
    expect(state).toContain('"additionalSecretOutputs"');

    // The key is read from the stack's configuration when the provider starts: a revoked key
    // fails with 401, and a rotated key just works (refresh and destroy run the program, so
    // the provider gets the configuration as it is now, not as the last `up` recorded it).
    await e2e.stack.setConfig("compute:apiKey", { value: "cs_revoked_000", secret: true });
    await expect(e2e.stack.refresh({ runProgram: true })).rejects.toThrow(/401/);
    await e2e.stack.setConfig("compute:apiKey", { value: ROTATED_KEY, secret: true });
    await e2e.stack.refresh({ runProgram: true });

    await e2e.stack.destroy({ runProgram: true });
    expect(await e2e.stateText()).not.toContain(ROTATED_KEY);
    const res = await fetch(`${e2e.emulator.url}/v2/pods`, { headers: { authorization: `Bearer ${e2e.emulator.apiKey}` } });
    expect(((await res.json()) as { pods: unknown[] }).pods).toEqual([]);
    const sb = await fetch(`${e2e.emulator.url}/v2/sandboxes`, { headers: { authorization: `Bearer ${e2e.emulator.apiKey}` } });
    expect(((await sb.json()) as { sandboxes: unknown[] }).sandboxes).toEqual([]);
  });
});
