/**
 * The registry (provider/resources/) is what every face derives from, so a definition that is
 * inconsistent in itself would break all of them at once: these are the rules each entry must
 * keep, checked for every entry (a resource added later is checked without a new test).
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { RESOURCES, resourceByKind, resourceByToken } from "../../provider/resources";
import { dynamicToken, nativeToken } from "../../provider/resources/definition";
import * as runtime from "../../provider/runtime";

/** The `### Inputs` part of the `## <resource>` section of docs/provider.md. */
function documentedInputs(resource: string): string {
  const lines = readFileSync(path.resolve(__dirname, "../../docs/provider.md"), "utf8").split("\n");
  const section = lines.indexOf(`## ${resource}`);
  const inputs = lines.findIndex((line, i) => i > section && line === "### Inputs");
  if (section < 0 || inputs < 0) return "";
  const next = lines.findIndex((line, i) => i > inputs && line.startsWith("#"));
  return lines.slice(inputs + 1, next < 0 ? undefined : next).join("\n");
}

describe.each(RESOURCES.map((definition) => [definition.name, definition] as const))("%s", (_name, definition) => {
  it("is found by its native and dynamic type tokens and its kind, and has handlers", () => {
    expect(resourceByToken(nativeToken(definition))).toBe(definition);
    expect(resourceByToken(dynamicToken(definition))).toBe(definition);
    expect(resourceByKind(definition.kind)).toBe(definition);
    expect(Object.keys(runtime.resources)).toContain(definition.kind);
    expect(runtime.nativeHandlersFor(nativeToken(definition))).toBe(runtime.resources[definition.kind]);
    // The forwarders' handlers are the same but for read (an unowned object's inputs stay out).
    const { read: _read, ...forwarded } = runtime.handlersFor(dynamicToken(definition));
    const { read: _ownRead, ...own } = runtime.resources[definition.kind]!;
    expect(forwarded).toEqual(own);
  });

  it("names outputs and inputs it has: the id output, the state output, the adopt input", () => {
    expect(Object.keys(definition.outputs)).toEqual(expect.arrayContaining([definition.idOutput, definition.states.output]));
    if (definition.adoptInput) expect(definition.inputs[definition.adoptInput]).toMatchObject({ sent: "provider" });
    expect(Object.keys(definition.inputs).filter((key) => key in definition.outputs)).toEqual([]);
  });

  it("decides the inputs whose change effect depends on other values with a diff of its own", () => {
    // What each change then does, the kind's own diff included, is performed for every input
    // through the provider protocol by test/e2e/every-kind-protocol.test.ts.
    const depends = Object.keys(definition.inputs).filter((key) => definition.inputs[key]!.onChange === "depends");
    expect({ depends, ownDiff: typeof definition.diff }).toEqual({ depends, ownDiff: depends.length > 0 ? "function" : expect.any(String) });
  });

  it("has every input named in the Inputs part of its docs section", () => {
    const documented = new Set([...documentedInputs(definition.name).matchAll(/`([A-Za-z]+)/g)].map((m) => m[1]));
    expect(Object.keys(definition.inputs).filter((key) => !documented.has(key))).toEqual([]);
  });

  it("waits for a target that is not also a failed state, and never for an ended one; without a wait, has nothing to wait with", () => {
    for (const state of definition.states.clutter ?? []) expect(definition.states.ended.has(state)).toBe(true);
    if (!definition.ready) {
      // Ready once created: no states to wait through, so no watcher, and nothing ends it.
      expect(definition.states.ended.size).toBe(0);
      return;
    }
    const wait = definition.ready({ name: "x" });
    expect(wait.failed.has(wait.target)).toBe(false);
    expect(definition.states.ended.has(wait.target)).toBe(false);
  });
});

it("no two resources share a name or a kind", () => {
  expect(new Set(RESOURCES.map((r) => r.name)).size).toBe(RESOURCES.length);
  expect(new Set(RESOURCES.map((r) => r.kind)).size).toBe(RESOURCES.length);
});

it("an unknown type token is refused with what the package serves", () => {
  expect(() => runtime.handlersFor("compute:index:Nope")).toThrow(/unknown resource type compute:index:Nope: this package serves compute:index:Pod, compute:index:Sandbox/);
});
