/**
 * The owner mark and what it lets a repeated create do: adopt what an interrupted attempt made,
 * never the resource a replacement replaces, never another stack's or another resource's.
 * Then the same through the provider against the emulator.
 */
import { POD_OWNER_ENV, SANDBOX_OWNER_LABEL, isFirstGeneration, nextGeneration, ownerMark, ownerOf, parseOwnerMark, withSpec } from "../../sdk";
import { leftBehind } from "../../provider/runtime/adoption";
import { GPU } from "../helpers/fixtures";
import { checked, PROVIDER_TEXT, recorded, runtime, useProvider } from "./helpers";
import { startNewRun } from "../../provider/runtime/shared-reads";

const identity = { organization: "organization", project: "ml", stack: "dev", backend: "file:///state", urn: "urn:pulumi:dev::ml::pulumi-nodejs:dynamic/compute:Pod::trainer", salt: "v1:abc" };

describe("owner marks", () => {
  it("are stable for one stack resource and differ for another stack, resource, project or salt", () => {
    const mark = ownerMark(identity);
    expect(ownerMark({ ...identity })).toBe(mark);
    for (const other of [{ stack: "prod" }, { project: "ml2" }, { urn: identity.urn.replace("trainer", "worker") }, { salt: "v1:other" }, { organization: "acme" }, { backend: "file:///other" }]) {
      expect(parseOwnerMark(ownerMark({ ...identity, ...other }))!.base).not.toBe(parseOwnerMark(mark)!.base);
    }
    expect(parseOwnerMark(mark)).toMatchObject({ label: "ml/dev/trainer" });
    expect(isFirstGeneration(mark)).toBe(true);
  });

  it("advance one generation per replacement, deterministically, keeping the current base and label", () => {
    const first = ownerMark(identity);
    const second = nextGeneration(first);
    const third = nextGeneration(second);
    expect(new Set([first, second, third]).size).toBe(3);
    expect(nextGeneration(first)).toBe(second); // a repeated run computes the same
    for (const mark of [second, third]) {
      expect(parseOwnerMark(mark)).toMatchObject({ base: parseOwnerMark(first)!.base, label: "ml/dev/trainer" });
      expect(isFirstGeneration(mark)).toBe(false);
    }
    // Renamed with an alias: the replacement carries the new URN's base, the old generation's successor.
    const renamed = ownerMark({ ...identity, urn: identity.urn.replace("trainer", "teacher") });
    const afterRename = nextGeneration(second, renamed);
    expect(parseOwnerMark(afterRename)).toMatchObject({ base: parseOwnerMark(renamed)!.base, generation: parseOwnerMark(third)!.generation, label: "ml/dev/teacher" });
  });

  it("carry a settings hash that does not depend on key order", () => {
    const a = withSpec(ownerMark(identity), { image: "i", gpu: { id: "g", count: 1 } });
    const b = withSpec(ownerMark(identity), { gpu: { count: 1, id: "g" }, image: "i" });
    const c = withSpec(ownerMark(identity), { image: "j", gpu: { id: "g", count: 1 } });
    expect(a).toBe(b);
    expect(parseOwnerMark(a)!.spec).not.toBe(parseOwnerMark(c)!.spec);
    expect(ownerOf({ env: { [POD_OWNER_ENV]: a } })?.key).toBe(parseOwnerMark(a)!.key);
    expect(ownerOf({ labels: { [SANDBOX_OWNER_LABEL]: a } })?.label).toBe("ml/dev/trainer");
    expect(ownerOf({ env: { [POD_OWNER_ENV]: "my own value" } })).toBeUndefined();
  });
});

describe("what a repeated create takes", () => {
  const first = ownerMark(identity);
  const spec = { image: "i" };
  const item = (id: string, mark: string | undefined, createdAt = "2026-11-23T10:00:00Z") => ({ id, createdAt, mark });
  const markOf = (i: { mark?: string }) => i.mark;

  it("a first create adopts the matching resource of its generation; every other of its base is a stray", () => {
    const older = item("p1", withSpec(first, spec), "2026-11-23T10:00:00Z");
    const newer = item("p2", withSpec(first, spec), "2026-11-23T10:05:00Z");
    const otherSettings = item("p3", withSpec(first, { image: "old" }));
    const laterGeneration = item("p4", withSpec(nextGeneration(first), spec)); // a killed replacement's, with no state left
    const found = leftBehind([older, newer, otherSettings, laterGeneration], markOf, withSpec(first, spec));
    expect(found.adopt?.id).toBe("p2");
    expect(found.strays.map((i) => i.id).sort()).toEqual(["p1", "p3", "p4"]);
  });

  it("a replacement takes only its own generation and never touches the resource it replaces", () => {
    const second = nextGeneration(first);
    const third = nextGeneration(second);
    const replaced = item("old", withSpec(first, { image: "before" }));
    const interrupted = item("new", withSpec(third, spec));
    const otherAttempt = item("other", withSpec(third, { image: "earlier attempt" }));
    const found = leftBehind([replaced, interrupted, otherAttempt], markOf, withSpec(third, spec));
    expect(found).toEqual({ adopt: interrupted, strays: [otherAttempt] });
    expect(leftBehind([replaced], markOf, withSpec(third, spec))).toEqual({ adopt: undefined, strays: [] });
  });

  it("ignores other stacks, other resources and unmarked resources", () => {
    const otherStack = item("x", withSpec(ownerMark({ ...identity, stack: "prod" }), spec));
    const otherResource = item("y", withSpec(ownerMark({ ...identity, urn: `${identity.urn}2` }), spec));
    const unmarked = item("z", undefined);
    expect(leftBehind([otherStack, otherResource, unmarked], markOf, withSpec(first, spec))).toEqual({ adopt: undefined, strays: [] });
  });
});

describe("the provider's creates, run again", () => {
  const env = useProvider();

  const listPods = async () => {
    const response = await fetch(`${env.url}/v2/pods`, { headers: { authorization: `Bearer ${env.apiKey}` } });
    return ((await response.json()) as { pods: Array<{ id: string; status: string; env: Record<string, string> }> }).pods;
  };

  it("a pod create repeated after an interrupted attempt returns the first attempt's pod", async () => {
    const mark = ownerMark({ ...identity, urn: `${identity.urn}-repeat` });
    const inputs = await checked("pod", { image: "i", gpu: { id: GPU.a5000 }, namePrefix: "trainer", ownerMark: mark });
    const first = await runtime.resources.pod.create(inputs);
    startNewRun(); // what a killed `up` followed by `up` does: the next run, in a new process
    const again = await runtime.resources.pod.create(inputs);
    expect(again.id).toBe(first.id);
    const mine = (await listPods()).filter((p) => p.env[POD_OWNER_ENV] !== undefined && parseOwnerMark(p.env[POD_OWNER_ENV])!.base === parseOwnerMark(mark)!.base);
    expect(mine.map((p) => p.id)).toEqual([first.id]);
    await runtime.resources.pod.remove(first.id, first.outs);
  });

  it("a replacement's create makes a new pod and leaves the one it replaces to the engine", async () => {
    const mark = ownerMark({ ...identity, urn: `${identity.urn}-replace` });
    const args = { image: "i", gpu: { id: GPU.a5000 }, namePrefix: "trainer", ownerMark: mark };
    const created = await runtime.resources.pod.create(await checked("pod", args));
    // What the engine does for a replacement (3.248 step_generator.go): check with the recorded
    // inputs, diff, then check again without them, and create.
    const recordedInputs = await checked("pod", args, created.outs);
    expect(recordedInputs.ownerMark).toBe(created.outs.ownerMark); // unchanged: no churn in state
    const changed = { ...args, gpu: { id: GPU.a5000, count: 2 } };
    expect((await runtime.resources.pod.diff(created.id, recorded(created.outs), { ...changed, ownerMark: recordedInputs.ownerMark, __provider: PROVIDER_TEXT })).replaces).toContain("gpu.count");
    const replacement = await checked("pod", changed);
    expect(isFirstGeneration(replacement.ownerMark as string)).toBe(false);
    const second = await runtime.resources.pod.create(replacement);
    expect(second.id).not.toBe(created.id);
    const live = (await listPods()).filter((p) => p.status !== "TERMINATED").map((p) => p.id);
    expect(live).toEqual(expect.arrayContaining([created.id, second.id])); // the old one is the engine's to delete
    // Run again after an interruption, the same replacement finds its first attempt.
    startNewRun();
    await checked("pod", args, created.outs);
    const again = await runtime.resources.pod.create(await checked("pod", changed));
    expect(again.id).toBe(second.id);
    await runtime.resources.pod.remove(created.id, created.outs);
    await runtime.resources.pod.remove(second.id, second.outs);
  });

  it("errors thrown by a method show [secret] for a secret input's value", async () => {
    const secret = "hunter2-very-secret";
    // Adopting an unknown id fails with a 404 whose message names the path, and so the value.
    const failure = await runtime.resources.pod
      .create({ name: secret, image: "i", gpu: { id: GPU.a5000 }, adoptPodId: secret, secretInputs: ["name", "adoptPodId"], __provider: PROVIDER_TEXT })
      .catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).message)).toContain("[secret]");
    expect(String((failure as Error).message)).not.toContain(secret);
    expect(String((failure as Error).stack)).not.toContain(secret);
  });
  it("a sandbox create repeated after an interrupted attempt returns the first attempt's sandbox", async () => {
    const mark = ownerMark({ ...identity, urn: identity.urn.replace("Pod::trainer", "Sandbox::scratch") });
    const inputs = await checked("sandbox", { image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 }, namePrefix: "scratch", ownerMark: mark });
    const first = await runtime.resources.sandbox.create(inputs);
    startNewRun(); // the next run
    const again = await runtime.resources.sandbox.create(inputs);
    expect(again.id).toBe(first.id);
    await runtime.resources.sandbox.remove(first.id, first.outs);
  });
});

describe("secret inputs in messages", () => {
  it("check failures name the field, never the value", async () => {
    const secret = "python train.py --token s3cr3t-value";
    const result = await runtime.resources.pod.check({}, { name: "x", image: "i", gpu: { id: "g" }, args: secret, cmd: ["other"], secretInputs: ["args"], __provider: PROVIDER_TEXT });
    expect(result.failures.length).toBeGreaterThan(0);
    for (const failure of result.failures) {
      expect(failure.property).toBe(""); // the engine prints a named property's value
      expect(failure.reason).toMatch(/^args/);
      expect(failure.reason).not.toContain("s3cr3t");
    }
  });

});
