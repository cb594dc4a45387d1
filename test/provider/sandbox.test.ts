import { checked, recorded, runtime, useProvider } from "./helpers";

jest.setTimeout(60_000);

const env = useProvider({ resetBeforeEach: true });

const compute = { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 };

async function liveSandboxes(state?: string) {
  const res = await fetch(`${env.url}/v2/sandboxes${state ? `?state=${state}` : ""}`, { headers: { authorization: `Bearer ${env.apiKey}` } });
  return ((await res.json()) as { sandboxes: Array<{ id: string; state: string }> }).sandboxes;
}

async function createSandbox(args: Record<string, unknown>) {
  const inputs = await checked("sandbox", { image: "python:3.12", compute, ...args });
  const created = await runtime.resources.sandbox.create(inputs);
  return { inputs, id: created.id, outs: recorded(created.outs) };
}

describe("Sandbox", () => {
  it("check reports every violation with its field", async () => {
    const result = await runtime.resources.sandbox.check({}, { name: "s", compute: { vcpuCount: 0 }, maxLifetimeSeconds: 10, egressPolicy: { mode: "ALLOW_LIST" }, __provider: "p" });
    expect(result.failures).toEqual(
      expect.arrayContaining([
        { property: "", reason: "compute.vcpuCount: must be >= 1" },
        { property: "", reason: "compute.memoryInGb: is required" },
        { property: "", reason: "maxLifetimeSeconds: must be >= 300" },
        { property: "", reason: "egressPolicy.allow: must not be empty when mode is ALLOW_LIST" },
      ]),
    );
  });

  it("creates and waits until RUNNING; the clamped idle timeout is an output, updated in place", async () => {
    const { id, inputs, outs } = await createSandbox({ name: "scratch", idleTimeoutSeconds: 30, labels: { team: "ml" } });
    expect(outs).toMatchObject({ sandboxId: id, state: "RUNNING", idleTimeoutSeconds: 30, appliedIdleTimeoutSeconds: 90 });
    // Desired 30 vs last desired 30: no perpetual diff even though the service applied 90.
    expect((await runtime.resources.sandbox.diff(id, outs, { ...inputs })).changes).toBe(false);

    const changed = { ...inputs, idleTimeoutSeconds: 999_999 };
    expect(await runtime.resources.sandbox.diff(id, outs, changed)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const updated = await runtime.resources.sandbox.update(id, outs, changed);
    expect(updated.outs).toMatchObject({ sandboxId: id, idleTimeoutSeconds: 999_999, appliedIdleTimeoutSeconds: 3600 });
  });

  it("extends the lifetime in place; a shorter lifetime or any other change replaces", async () => {
    const { id, inputs, outs } = await createSandbox({ name: "long", maxLifetimeSeconds: 600 });
    const longer = { ...inputs, maxLifetimeSeconds: 1200 };
    expect((await runtime.resources.sandbox.diff(id, outs, longer)).replaces).toEqual([]);
    const extended = await runtime.resources.sandbox.update(id, outs, longer);
    expect(extended.outs).toMatchObject({ sandboxId: id, appliedMaxLifetimeSeconds: 1200 });
    expect(Date.parse(extended.outs.expiresAt as string)).toBeGreaterThan(Date.parse(outs.expiresAt as string));

    expect((await runtime.resources.sandbox.diff(id, recorded(extended.outs), { ...longer, maxLifetimeSeconds: 300 })).replaces).toEqual(["maxLifetimeSeconds"]);
    expect((await runtime.resources.sandbox.diff(id, outs, { ...inputs, labels: { a: "b" } })).replaces).toEqual(["labels"]);
    expect((await runtime.resources.sandbox.diff(id, outs, { ...inputs, image: "node:22" })).replaces).toEqual(["image"]);
  });

  it("a sandbox that idled out leaves the state on refresh", async () => {
    const { id, outs } = await createSandbox({ name: "idle", idleTimeoutSeconds: 90 });
    await env.control.freezeClock();
    await env.control.advance(120_000);
    expect(await runtime.resources.sandbox.read(id, outs)).toEqual({ id: "" });
    await env.control.unfreezeClock();
  });

  it("a sandbox whose container exited leaves the state on refresh; a live one keeps its inputs", async () => {
    const { id, inputs, outs } = await createSandbox({ name: "live" });
    const fresh = await runtime.resources.sandbox.read(id, outs);
    const { __provider: _p, ...expected } = inputs;
    void _p;
    expect(fresh.inputs).toEqual(expected);
    await env.control.sandboxExit(id);
    expect(await runtime.resources.sandbox.read(id, outs)).toEqual({ id: "" });
  });

  it("a sandbox that fails to start is terminated by the failed create, so nothing is left behind", async () => {
    await env.control.failNext("sandbox");
    const inputs = await checked("sandbox", { name: "broken", image: "nope", compute });
    await expect(runtime.resources.sandbox.create(inputs)).rejects.toThrow(/ended FAILED \(START_FAILED\) instead of RUNNING/);
    expect(await liveSandboxes()).toEqual([]);
  });

  it("delete terminates and is idempotent", async () => {
    const { id, outs } = await createSandbox({ name: "tmp" });
    await runtime.resources.sandbox.remove(id, outs);
    await runtime.resources.sandbox.remove(id, outs);
    expect(await liveSandboxes()).toEqual([]);
    expect((await liveSandboxes("TERMINATED")).map((s) => s.id)).toContain(id);
  });
});
