import { billingCases, describeNativeStack, type NativeStack } from "./native-stack";
import { runCliInProcess } from "../cli/helpers";

jest.setTimeout(15 * 60_000);

/**
 * A Pulumi YAML program (test/e2e/programs/yaml-stack) through the real engine: the YAML language
 * host and the native `compute` plugin, found as scripts/setup.sh leaves them (hosts next to
 * `pulumi`, the plugin in the Pulumi home). Beside the pod and the sandbox: the stack.
 */
describe("a Pulumi YAML stack through the native plugin", () => {
  describeNativeStack("yaml", "yaml-stack", 1, (stack) => {
    billingCases(stack);
    lifetimeCases(stack);
  });
});

/**
 * The pod's `lifetime` (docs/provider.md, "Lifetimes") through the native plugin: a shorter one
 * is a rename, not a restart; `compute reap` stops it at the deadline on the emulator's clock;
 * refresh records why and when; `up` does not start it again until the lifetime changes.
 */
function lifetimeCases(stack: NativeStack): void {
  it("a pod's lifetime fires with no program, and up brings it back only once the lifetime changes", async () => {
    const { e2e } = stack;
    const podId = stack.last.podId;
    const read = async () => (await (await fetch(`${e2e.emulator.url}/v2/pods/${podId}`, { headers: { authorization: `Bearer ${e2e.emulator.apiKey}` } })).json()) as { startedAt: string; status: string };
    const before = await read();
    const shorter = await stack.upWith({ lifetimeSeconds: "7200" });
    // A rename: the container was not restarted (the same run), and no action was asked for.
    expect(await read()).toMatchObject({ status: "RUNNING", startedAt: before.startedAt });
    // (An object output's null members do not cross the native plugin: absent, not null.)
    expect(shorter.out).toMatchObject({ podId, podStatus: "RUNNING", podExpiry: { action: "STOP" } });
    expect(shorter.out.podExpiry).not.toHaveProperty("expiredAt", expect.any(String));
    expect((await e2e.control.requests()).filter((r) => r.path.startsWith(`/v2/pods/${podId}/action`))).toEqual([]);

    await e2e.control.advance(2 * 3600_000 + 60_000);
    const project = (await e2e.stack.workspace.projectSettings()).name;
    const reaped = await runCliInProcess(["reap", "--stack", `${project}/${e2e.stack.name}`, "--apply", "--claim-wait", "0"], { COMPUTE_BASE_URL: e2e.emulator.url, COMPUTE_API_KEY: e2e.emulator.apiKey });
    expect(reaped.stdout).toMatch(new RegExp(`^pod \\S+ \\(${podId}, ${project}/${e2e.stack.name}\\): STOP, lifetime reached at .+: stopped$`, "m"));

    await e2e.stack.refresh();
    const state = (await e2e.stack.exportStack()).deployment.resources as Array<{ id?: string; outputs?: Record<string, any> }>;
    expect(state.find((r) => r.id === podId)?.outputs).toMatchObject({ status: "EXITED", expiry: { reason: "lifetime", expiredAt: expect.any(String) } });

    // The sandbox idled out in those two hours (recreated: drift's own case); the pod stays stopped.
    const held = await stack.upWith({});
    expect(held.out).toMatchObject({ podId, podStatus: "EXITED", podExpiry: { reason: "lifetime" } });
    const longer = await stack.upWith({ lifetimeSeconds: "10800" });
    expect(longer.out).toMatchObject({ podId, podStatus: "RUNNING", podExpiry: { action: "STOP" } });
    expect(longer.out.podExpiry).not.toHaveProperty("expiredAt", expect.any(String));
  });
}
