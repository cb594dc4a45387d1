import { createE2EStack, noIds, type E2EStack } from "./harness";

jest.setTimeout(15 * 60_000);

/**
 * A cluster from a Python program (test/e2e/programs/cluster-python) through the real engine:
 * the Python language host, the generated `pulumi_compute` SDK and the native plugin. Create,
 * rename in place, resize (a replacement), destroy.
 */
describe("a cluster from a Python stack", () => {
  let e2e: E2EStack;

  beforeAll(async () => {
    e2e = await createE2EStack("cluster-python", { program: "cluster-python" });
  });
  afterAll(() => e2e?.dispose());

  const value = (up: { outputs: Record<string, { value: unknown }> }, key: string) => up.outputs[key]!.value;

  it("creates, renames in place, replaces on a new node count, and destroy leaves nothing", async () => {
    const created = await e2e.stack.up();
    const id = value(created, "clusterId");
    expect(value(created, "status")).toBe("RUNNING");
    expect(value(created, "nodes")).toEqual([
      { rank: 0, role: "RAY_HEAD", ip: expect.any(String) },
      { rank: 1, role: "RAY_WORKER", ip: expect.any(String) },
    ]);
    expect(value(created, "headSsh")).toMatch(/^ssh root@/);

    await e2e.stack.setConfig("clusterName", { value: "ray-renamed" });
    const renamed = await e2e.stack.up();
    expect(renamed.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(value(renamed, "clusterId")).toBe(id);
    expect(value(renamed, "name")).toBe("ray-renamed");

    await e2e.stack.setConfig("podCount", { value: "3" });
    const resized = await e2e.stack.up();
    expect(value(resized, "clusterId")).not.toBe(id);
    expect(value(resized, "nodes")).toHaveLength(3);
    expect(await e2e.liveIds()).toMatchObject({ cluster: [value(resized, "clusterId")] });

    await e2e.stack.destroy();
    expect(await e2e.liveIds()).toEqual(noIds());
  });
});
