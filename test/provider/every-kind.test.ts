/**
 * Every kind the registry serves (provider/resources/index.ts), from its definition's example
 * (provider/resources/<kind>/example.ts), through the runtime's handlers as the engine calls
 * them, against a started emulator: the example passes `check`; `create` records the input
 * values and exactly the listed outputs, and the object carries the stack resource's owner mark;
 * the definition's `facts` of the live object are exactly its outputs (`ready` aside: the
 * runtime records it from the probes); `read` records the same keys; `remove` leaves the
 * account as it found it, in every kind's list. A kind added to the registry is exercised here
 * with no edit: the list of kinds is the registry's.
 */
import { RESOURCES } from "../../provider/resources";
import { fixedOutputs, nativeToken, type ResourceDefinition } from "../../provider/resources/definition";
import { STATE_VERSION_KEY } from "../../provider/runtime/state-versions";
import { ownerMark, parseOwnerMark } from "../../sdk";
import { eventually } from "../helpers/eventually";
import { added, clientOf, listedIds, noIds } from "../helpers/live-objects";
import { exampleOf } from "./examples";
import { PROVIDER_TEXT, recorded, runtime, useProvider } from "./helpers";

jest.setTimeout(120_000);

/** The mark the resource class gives a stack resource of this definition named `name`. */
const markFor = (definition: ResourceDefinition, name: string) =>
  ownerMark({ organization: "organization", project: "every", stack: "dev", backend: "file:///state", urn: `urn:pulumi:dev::every::${nativeToken(definition)}::${name}`, salt: "s" });

/** A mark in the form an object's carrier gives back (a name holds a compact one), as the generation it names. */
const generationOf = (definition: ResourceDefinition, mark: string | undefined) =>
  mark === undefined ? undefined : parseOwnerMark(definition.owner.compact ? definition.owner.compact(mark) : mark)?.key;

const KINDS = RESOURCES.map((definition) => [definition.name, definition] as const);

describe("every kind, from its example, through the runtime's handlers", () => {
  const env = useProvider({ resetBeforeEach: true });

  it.each(KINDS)("%s: check, create, read and remove leave nothing behind, recording exactly the listed outputs", async (name, definition) => {
    const handlers = runtime.resources[definition.kind]!;
    const api = clientOf(env);
    const before = await listedIds(api);

    // What the resource class sends: the program's values, the logical name and the owner mark.
    const example = exampleOf(definition);
    const mark = markFor(definition, `every-${name}`);
    const checked = await handlers.check({}, { ...example, namePrefix: `every-${name}`, ownerMark: mark, __provider: PROVIDER_TEXT });
    expect(checked.failures).toEqual([]);
    const { __provider: _provider, ...inputs } = checked.inputs;
    expect(definition.violations(inputs)).toEqual([]);

    const created = await handlers.create(checked.inputs);
    try {
      // Recorded: the checked inputs as they are, and next to them exactly the listed outputs.
      expect(created.outs[definition.idOutput]).toBe(created.id);
      expect(created.outs).toMatchObject(inputs);
      const facts = Object.keys(created.outs).filter((key) => !(key in checked.inputs));
      expect(facts.sort()).toEqual([...Object.keys(definition.outputs), STATE_VERSION_KEY].sort());

      // The service holds exactly one new object, listed as this kind, carrying this resource's
      // mark. (Only two kinds reading one service family could list the same object twice.)
      const gained = added(await listedIds(api), before);
      expect(gained[definition.kind]).toEqual([created.id]);
      expect([...new Set(Object.values(gained).flat())]).toEqual([created.id]);
      const live = await definition.family(api).get(created.id);
      expect(generationOf(definition, definition.owner.read(live))).toBe(generationOf(definition, mark));

      // Its facts are the output list's (the runtime adds `ready`, and `expiry` from the lifetime tag), and what never changes in place reads the same.
      const liveFacts = definition.facts(live) as Record<string, unknown>;
      const byRuntime = (key: string) => (definition.readiness !== undefined && key === "ready") || (definition.lifetime !== undefined && key === "expiry");
      expect(Object.keys(liveFacts).sort()).toEqual(Object.keys(definition.outputs).filter((key) => !byRuntime(key)).sort());
      for (const key of fixedOutputs(definition.outputs)) expect({ [key]: liveFacts[key] }).toEqual({ [key]: created.outs[key] });

      // A refresh reads it back under the same keys.
      const read = await handlers.read(created.id, recorded(created.outs));
      expect(read.id).toBe(created.id);
      expect(Object.keys(read.props ?? {}).sort()).toEqual(Object.keys(created.outs).sort());
    } finally {
      await handlers.remove(created.id, recorded(created.outs));
    }
    // Gone from every list: nothing of any kind is left that was not there before.
    await eventually("the account back to what it held before the create", async () => added(await listedIds(api), before), {
      until: (left) => JSON.stringify(left) === JSON.stringify(noIds()),
      timeoutMs: 30_000,
    });
  });
});
