/**
 * State versions and migrations (provider/runtime/state-versions.ts), through the handlers both
 * faces run. The recorded stacks of test/upgrades/ prove the version-less states of earlier
 * builds (version 1) end to end; here, a later shape: the sandbox definition given a migration
 * as a later build would add one, a state of the earlier shape, and what each method makes of it.
 */
import { sandboxResource } from "../../provider/resources/sandbox";
import type { ResourceDefinition } from "../../provider/resources/definition";
import { handlersOf } from "../../provider/runtime/handlers";
import { PartialFailure } from "../../provider/runtime/partial";
import { STATE_VERSION_KEY, stateVersion, upgradedState } from "../../provider/runtime/state-versions";
import { checked, recorded, runtime, useProvider } from "./helpers";

jest.setTimeout(60_000);

const env = useProvider({ resetBeforeEach: true });

/**
 * A later build's sandbox: its version-1 states called the idle timeout `idleTimeout`, version 2
 * calls it `idleTimeoutSeconds`. The migration is the one such a build would ship.
 */
const renamedIdleTimeout = (state: Record<string, unknown>) => {
  const { idleTimeout, ...rest } = state;
  return idleTimeout === undefined ? rest : { ...rest, idleTimeoutSeconds: idleTimeout };
};
const laterSandbox: ResourceDefinition = { ...sandboxResource, migrations: [renamedIdleTimeout] };

/** A state of the earlier shape: what the version-1 build recorded for the same sandbox. */
function versionOneState(outs: Record<string, unknown>): Record<string, unknown> {
  const { idleTimeoutSeconds, [STATE_VERSION_KEY]: _version, ...rest } = outs;
  void _version;
  return { ...rest, idleTimeout: idleTimeoutSeconds };
}

async function createSandbox() {
  const inputs = await checked("sandbox", { name: "scratch", image: "python:3.12", compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 }, idleTimeoutSeconds: 900 });
  const created = await runtime.resources.sandbox.create(inputs);
  return { inputs, id: created.id, outs: recorded(created.outs) };
}

describe("state versions", () => {
  it("every state the runtime writes says its version: 1 for every kind today", async () => {
    const { outs } = await createSandbox();
    expect(outs[STATE_VERSION_KEY]).toBe(1);
    expect(stateVersion(sandboxResource)).toBe(1);
    expect(stateVersion(laterSandbox)).toBe(2);
  });

  it("a state without a version is version 1: read as it is, written back with the version", () => {
    const state = { name: "scratch", idleTimeoutSeconds: 900 };
    expect(upgradedState(sandboxResource, state)).toEqual({ ...state, [STATE_VERSION_KEY]: 1 });
  });

  it("diff, read and update see an earlier shape migrated, and write today's version", async () => {
    const { id, inputs, outs } = await createSandbox();
    const handlers = handlersOf(laterSandbox);
    const old = versionOneState(outs);

    // Unmigrated, the renamed input would look removed (an update); migrated, nothing changed.
    expect(await handlers.diff(id, old, { ...inputs })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });

    const read = await handlers.read(id, old);
    expect(read.props).toMatchObject({ sandboxId: id, idleTimeoutSeconds: 900, [STATE_VERSION_KEY]: 2 });
    expect(read.props).not.toHaveProperty("idleTimeout");
    expect(read.inputs).toMatchObject({ idleTimeoutSeconds: 900 });
    expect(read.inputs).not.toHaveProperty(STATE_VERSION_KEY);

    const updated = await handlers.update(id, old, { ...inputs, idleTimeoutSeconds: 1200 });
    expect(updated.outs).toMatchObject({ sandboxId: id, idleTimeoutSeconds: 1200, [STATE_VERSION_KEY]: 2 });
    expect(updated.outs).not.toHaveProperty("idleTimeout");
  });

  it("a partial failure a definition's own hook raises records the resource with the version too", async () => {
    const { id, inputs, outs } = await createSandbox();
    await env.control.sandboxExit(id);
    // The sandbox's update finds it ended and records it so (provider/resources/sandbox).
    const failure = await handlersOf(sandboxResource)
      .update(id, outs, { ...inputs, idleTimeoutSeconds: 1200 })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(PartialFailure);
    expect((failure as PartialFailure).properties).toMatchObject({ sandboxId: id, [STATE_VERSION_KEY]: 1 });
  });

  it("a state from a later build is refused by every method that reads it, saying what to install", async () => {
    const { id, inputs, outs } = await createSandbox();
    const later = { ...outs, [STATE_VERSION_KEY]: 2 };
    const refusal = /the recorded state of this sandbox is version 2, written by a later build of pulumi-compute than this one \(it reads versions 1 to 1\): install the build that wrote it/;
    const sandbox = runtime.resources.sandbox;
    await expect(sandbox.diff(id, later, { ...inputs })).rejects.toThrow(refusal);
    await expect(sandbox.read(id, later)).rejects.toThrow(refusal);
    await expect(sandbox.update(id, later, { ...inputs })).rejects.toThrow(refusal);
    await expect(sandbox.remove(id, later)).rejects.toThrow(refusal);
    // Nothing was done to it: still running.
    const live = await fetch(`${env.url}/v2/sandboxes/${id}`, { headers: { authorization: `Bearer ${env.apiKey}` } });
    expect(((await live.json()) as { state: string }).state).toBe("RUNNING");
  });

  it("a version that is not a whole number from 1 is refused, naming the key", () => {
    for (const bad of [0, 1.5, "1"]) {
      expect(() => upgradedState(sandboxResource, { [STATE_VERSION_KEY]: bad })).toThrow(/has __stateVersion .*: a state version is a whole number from 1/);
    }
  });
});
