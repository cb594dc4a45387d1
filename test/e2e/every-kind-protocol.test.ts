/**
 * Every kind's whole table, through the provider protocol (the built plugin over gRPC, as the
 * engine calls it; plugin-harness.ts), from each definition's example and its `exampleChanges`
 * (provider/resources/<kind>/example.ts). A kind added to the registry is held to all of it with
 * no edit here, and must bring a change for each input it lets change:
 * - each input whose `onChange` is not "nothing" is changed, one row each, and the `up` performs
 *   the step the input list says (a `depends` input: the step its change row says): an update
 *   keeps the id, a replacement makes a new object and deletes the old one; a refresh and the
 *   preview after it then find nothing to do (where refresh reads an input back from the
 *   service, that says the service holds the change);
 * - a secret in every input that can hold one (`env`, and the inputs that are always secret) is
 *   nowhere in what the engine would write to the state, created or refreshed;
 * - after the table, deleting what is left leaves nothing of any kind, cluster member pods counted.
 * It runs in both jest projects, so against both answer shapes.
 */
import { RESOURCES } from "../../provider/resources";
import { nativeToken, type ExampleChange, type ResourceDefinition } from "../../provider/resources/definition";
import { MAYBE_SECRET } from "../../provider/functions";
import { clientOf, clusterMemberIds, noIds } from "../helpers/live-objects";
import { secret } from "../provider/native/client";
import { exampleOf } from "../provider/examples";
import { plaintext, usePlugin, type Props, type Recorded } from "./plugin-harness";

jest.setTimeout(300_000);

type Step = "update" | "replace";

/** The rows of a definition's table: each input the list lets change, its change, and the step it must take. */
function rowsOf(definition: ResourceDefinition): Array<[string, ExampleChange | undefined, Step | undefined]> {
  return Object.entries(definition.inputs)
    .filter(([, spec]) => spec.onChange !== "nothing")
    .map(([key, spec]) => {
      const change = definition.exampleChanges[key];
      return [key, change, spec.onChange === "depends" ? change?.does : (spec.onChange as Step)];
    });
}

/** `base` with `overrides` on top; an override of `undefined` takes the input out. */
function withOverrides(base: Props, overrides: Readonly<Record<string, unknown>> = {}): Props {
  const merged: Props = { ...base, ...overrides };
  for (const [key, value] of Object.entries(merged)) if (value === undefined) delete merged[key];
  return merged;
}

const KINDS = RESOURCES.map((definition) => [definition.name, definition] as const);

const p = usePlugin();

describe.each(KINDS)("%s", (name, definition) => {
  const type = nativeToken(definition);
  const rows = rowsOf(definition);
  /** The resource the rows without `from` change one after another, and what it declares now. */
  let chained: { res: Recorded; declared: Props } | undefined;
  /** What the table holds now, by id (a row that fails midway leaves its resource here): the last case deletes it. */
  const held = new Map<string, Recorded>();

  it("brings a change for every input the list lets change, and says what a depends input's change does", () => {
    expect(rows.filter(([, change]) => change === undefined).map(([key]) => key)).toEqual([]);
    expect(rows.filter(([, , step]) => step !== "update" && step !== "replace").map(([key]) => key)).toEqual([]);
    expect(Object.keys(definition.exampleChanges).filter((key) => !rows.some(([row]) => row === key))).toEqual([]);
  });

  it.each(rows.filter(([, change]) => change !== undefined).map(([key, change, step]) => [key, step, change!] as const))(
    "changing %s: %s",
    async (key, step, change) => {
      let res: Recorded;
      let base: Props;
      if (change.from) {
        base = withOverrides(exampleOf(definition), change.from);
        res = await p.create(type, `table-${key}`, base);
      } else {
        chained ??= { declared: exampleOf(definition), res: await p.create(type, "table", exampleOf(definition)) };
        ({ res, declared: base } = chained);
      }
      held.set(res.id, res);
      const news = withOverrides(base, { [key]: change.to });

      const done = await p.up(res, news);
      // Recorded as the engine would, before any check: a failing row does not fail the next.
      if (done.res.id !== res.id) held.delete(res.id);
      held.set(done.res.id, done.res);
      if (!change.from) chained = { res: done.res, declared: news };
      expect(done.step).toBe(step);
      if (step === "update") expect(done.res.id).toBe(res.id);
      else {
        expect(done.res.id).not.toBe(res.id);
        expect((await p.liveIds())[definition.kind]).not.toContain(res.id);
      }

      // A refresh, then a preview that finds nothing to do: for the inputs refresh reads back
      // from the service, the service holds the change.
      const refreshed = await p.refresh(done.res);
      expect(refreshed?.id).toBe(done.res.id);
      held.set(refreshed!.id, refreshed!);
      if (!change.from) chained = { res: refreshed!, declared: news };
      expect(await p.changedInputs(refreshed!)).toEqual([]);

      if (change.from) {
        await p.remove(refreshed!);
        held.delete(refreshed!.id);
      }
    },
  );

  it("keeps a secret in every input that can hold one out of what the engine writes to the state", async () => {
    const secrets: Props = {};
    for (const [key, spec] of Object.entries(definition.inputs)) {
      if (spec.secret && spec.type === "string") secrets[key] = `secret-${key}-in-${name}-7c1f`;
      else if ((MAYBE_SECRET as readonly string[]).includes(key)) secrets[key] = { TOKEN: `secret-${key}-in-${name}-7c1f` };
    }
    const given = { ...exampleOf(definition), ...Object.fromEntries(Object.entries(secrets).map(([key, value]) => [key, secret(value)])) };
    const created = await p.create(type, "secrets", given);
    held.set(created.id, created);
    const refreshed = await p.refresh(created);
    expect(refreshed?.id).toBe(created.id);
    held.set(refreshed!.id, refreshed!);
    const written = JSON.stringify(plaintext([created.inputs, created.outputs, refreshed!.inputs, refreshed!.outputs]));
    expect(written).toContain(created.id);
    // Every kind has one such input (SshKey: none; its key is public).
    for (const key of Object.keys(secrets)) expect([key, written.includes(`secret-${key}-in-${name}-7c1f`)]).toEqual([key, false]);
  });

  it("deleting what the table left leaves nothing of any kind, cluster member pods counted", async () => {
    // Every delete is tried, whatever the one before it did; a failed one is reported.
    const failed: string[] = [];
    for (const res of held.values()) await p.remove(res).catch((error: Error) => failed.push(`${res.id}: ${error.message}`));
    held.clear();
    expect(failed).toEqual([]);
    chained = undefined;
    expect(await p.liveIds()).toEqual(noIds());
    const api = clientOf(p.env.emulator);
    try {
      expect((await clusterMemberIds(api)).filter((id) => !p.env.fixtureMembers.includes(id))).toEqual([]);
    } finally {
      await api.close();
    }
  });
});
