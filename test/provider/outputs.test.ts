/**
 * The output lists (each definition's `outputs`) are the one home of each resource's outputs: the
 * docs' Outputs tables and the resource objects' output properties must say the same, for every
 * kind of the registry (provider/resources/index.ts), a new one with no edit here. The facts the
 * runtime records are held to the same lists by every-kind.test.ts.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { classes } from "../../provider/classes";
import { RESOURCES } from "../../provider/resources";
import type { FieldSpec, OutputList } from "../../provider/resources/definition";
import { exampleOf } from "./examples";
import { providerText } from "../../provider/forwarder";
import { dynamicToken } from "../../provider/resources/definition";

const budgets = require("../../bench/budgets.json") as { serializedProviderBytes: number };

/** The Outputs table docs/provider.md must hold for a list (printed on a mismatch, ready to paste). */
function docsTable(list: OutputList): string[] {
  const shape = (spec: FieldSpec): string => {
    if (spec.type === "object") return `{${Object.entries(spec.properties).map(([key, p]) => (p.optional ? `${key}?` : key)).join(", ")}}`;
    if (spec.type === "array") return spec.items.type === "object" ? `[${shape(spec.items)}]` : `${shape(spec.items)}[]`;
    return spec.type;
  };
  const typeText = (spec: FieldSpec) => {
    const text = spec.type === "object" || spec.type === "array" ? `\`${shape(spec)}\`` : spec.type;
    return spec.nullable ? `${text} \\| null` : text;
  };
  const rows = Object.entries(list).map(([name, spec]) => `| \`${name}\` | ${typeText(spec)} | ${spec.doc}${spec.secret ? " Always a secret." : ""} |`);
  return ["| output | type | notes |", "| --- | --- | --- |", ...rows];
}

/** The first table of the `### Outputs` part of the `## <resource>` section of docs/provider.md. */
function documentedTable(resource: string): string[] {
  const lines = readFileSync(path.resolve(__dirname, "../../docs/provider.md"), "utf8").split("\n");
  const section = lines.indexOf(`## ${resource}`);
  const outputs = lines.findIndex((line, i) => i > section && line === "### Outputs");
  if (section < 0 || outputs < 0) throw new Error(`docs/provider.md has no "### Outputs" under "## ${resource}"`);
  const next = lines.findIndex((line, i) => i > outputs && line.startsWith("#"));
  const part = lines.slice(outputs + 1, next < 0 ? undefined : next);
  const start = part.findIndex((line) => line.startsWith("|"));
  if (start < 0) return [];
  const end = part.findIndex((line, i) => i > start && !line.startsWith("|"));
  return part.slice(start, end < 0 ? undefined : end).map((line) => line.trim());
}

/** Every kind of the registry, by its resource name. */
const KINDS = RESOURCES.map((definition) => [definition.name, definition] as const);

describe("docs/provider.md documents exactly the listed outputs", () => {
  it.each(KINDS)("%s: the Outputs table is the list's", (resource, definition) => {
    expect(documentedTable(resource)).toEqual(docsTable(definition.outputs));
  });
});

/** What each resource registered with the engine (its type token and inputs), by its name. */
const registered = new Map<string, { type: string; inputs: Record<string, unknown> }>();

describe("a resource object has an output property per listed output", () => {
  beforeAll(() =>
    pulumi.runtime.setMocks(
      {
        // Each output resolves to its own name, so a property wired to the wrong key shows.
        newResource: (args) => {
          registered.set(args.name, { type: args.type, inputs: args.inputs });
          return { id: `${args.name}-id`, state: { ...args.inputs, ...Object.fromEntries(RESOURCES.flatMap((definition) => Object.keys(definition.outputs)).map((key) => [key, key])) } };
        },
        call: (args) => args.inputs,
      },
      "outputs-test",
      "dev",
    ),
  );

  const valueOf = (output: pulumi.Output<unknown>) => new Promise((resolve) => output.apply(resolve));

  it.each(KINDS)("%s", async (resource, definition) => {
    // The package has a class per registered resource, under the resource's name.
    const made = classes[resource];
    expect(made).toEqual(expect.any(Function));
    const named = "name" in definition.inputs;
    const object = new made!("listed", { ...exampleOf(definition), ...(named ? { name: "listed" } : {}) }) as object as Record<string, pulumi.Output<unknown>>;
    const list = definition.outputs;
    const values = await Promise.all(Object.keys(list).map((key) => valueOf(object[key]!)));
    // The id output is the resource's id (known in a preview of its update); every other output its own key.
    expect(values).toEqual(Object.keys(list).map((key) => (key === definition.idOutput ? "listed-id" : key)));
    if (named) expect(await valueOf(object.name!)).toBe("listed");
  });
});

describe("a resource registers what pulumi.dynamic.Resource registered, with a one-line provider", () => {
  it.each(KINDS)("%s", async (resource, definition) => {
    const named = "name" in definition.inputs;
    const object = new classes[resource]!(`registered-${resource}`, { ...exampleOf(definition), ...(named ? { name: "registered" } : {}) });
    // A program that tells dynamic resources apart by class still can.
    expect(object).toBeInstanceOf(pulumi.dynamic.Resource);
    expect(object).toBeInstanceOf(pulumi.CustomResource);
    await new Promise<void>((resolve) => object.urn.apply(() => resolve()));
    const { type, inputs } = registered.get(`registered-${resource}`)!;
    // The token earlier builds registered under: a stack's resources keep their URNs.
    expect(type).toBe(dynamicToken(definition));
    // What the dynamic-provider host loads: the runtime, by package name, and this type's token.
    const text = inputs.__provider as string;
    expect(text).toBe(providerText(type));
    expect(text).toContain(`require("pulumi-compute/provider-runtime").forward(${JSON.stringify(type)}, `);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(budgets.serializedProviderBytes);
  });
});
