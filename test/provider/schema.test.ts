/**
 * The native plugin's package schema: `schema.json` (committed, what SDK generation and Pulumi
 * YAML read) is what `packageSchema()` builds, it is a valid Pulumi package schema, and its
 * resources say what the input and output lists, the TypeScript resources and the diff say.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { version } from "../../package.json";
import * as functions from "../../provider/functions";
import { BOOKKEEPING_INPUTS, diffOf, type InputList } from "../../provider/resources/definition";
import { POD_INPUTS } from "../../provider/resources/pod/inputs";
import { SANDBOX_INPUTS } from "../../provider/resources/sandbox/inputs";
import { packageSchema } from "../../provider/native/schema";
import type { OutputList } from "../../provider/resources/definition";
import { POD_OUTPUTS } from "../../provider/resources/pod/outputs";
import { SANDBOX_OUTPUTS } from "../../provider/resources/sandbox/outputs";
import { NetworkVolume, Pod, RegistryCredential, Sandbox, ServerlessEndpoint, SshKey, Template } from "../../provider/classes";
import { RESOURCES } from "../../provider/resources";
import type { Props } from "../../provider/resources/definition";
import type { FieldSpec } from "../../provider/properties";
import { diffPod, type PodInputs, type PodOutputs } from "../../provider/resources/pod/model";
import { PROVIDER_KEY } from "../../provider/runtime/props";
import { diffSandbox, type SandboxInputs } from "../../provider/resources/sandbox";

const root = path.resolve(__dirname, "../..");
const committedText = readFileSync(path.join(root, "schema.json"), "utf8");

type Property = { type?: string; items?: Property; additionalProperties?: Property; $ref?: string; description?: string; secret?: boolean };
type ObjectType = { type: "object"; properties: Record<string, Property>; required?: string[] };
type EnumType = { type: string; enum: Array<{ value: string }> };
type ResourceSpec = { inputProperties: Record<string, Property>; requiredInputs: string[]; properties: Record<string, Property>; required: string[] };
interface Schema {
  config: { variables: Record<string, Property> };
  provider: { inputProperties: Record<string, Property> };
  resources: Record<string, ResourceSpec>;
  functions: Record<string, { inputs?: ObjectType; outputs: ObjectType }>;
  types: Record<string, ObjectType | EnumType>;
  language: { python: { packageName: string }; nodejs: { packageName: string }; go: { importBasePath: string; respectSchemaVersion: boolean } };
}
const schema = JSON.parse(committedText) as Schema;

describe("schema.json", () => {
  it("is what packageSchema() builds for the package version", () => {
    const generated = `${JSON.stringify(packageSchema(version), null, 2)}\n`;
    expect(committedText === generated ? "up to date" : "schema.json differs from packageSchema(version): run `npm run schema`").toBe("up to date");
  });

  /**
   * Pulumi's own metaschema (test/fixtures/pulumi-schema). zod reads `format: uri-reference` as
   * an absolute URL, which would refuse every `#/types/…` reference: that one keyword is dropped
   * (references are checked below instead).
   */
  const metaschema = z.fromJSONSchema(
    JSON.parse(readFileSync(path.join(__dirname, "../fixtures/pulumi-schema/pulumi.json"), "utf8"), (_key, value) => {
      if (value && typeof value === "object" && value.format === "uri-reference") {
        const { format: _format, ...rest } = value;
        return rest;
      }
      return value;
    }),
  );

  it("is valid against Pulumi's package metaschema", () => {
    const result = metaschema.safeParse(schema);
    expect(result.success ? [] : result.error.issues).toEqual([]);
  });

  it("(the metaschema check refuses what Pulumi refuses)", () => {
    const broken = JSON.parse(committedText) as Schema;
    broken.resources["compute:index:Pod"]!.inputProperties.disk!.type = "int";
    expect(metaschema.safeParse(broken).success).toBe(false);
  });

  it("refers only to types it declares, and declares none it does not use", () => {
    const refs = new Set<string>();
    JSON.parse(committedText, (key, value) => {
      if (key === "$ref") refs.add(value);
      return value;
    });
    const declared = Object.keys(schema.types).map((token) => `#/types/${token}`);
    expect([...refs].sort()).toEqual(declared.sort());
  });

  it("lists as required only properties it has; arrays say their items", () => {
    const objects: Array<[string, Record<string, Property>, string[]]> = [
      ...Object.entries(schema.resources).flatMap(([token, r]): Array<[string, Record<string, Property>, string[]]> => [
        [`${token} inputs`, r.inputProperties, r.requiredInputs],
        [`${token} state`, r.properties, r.required],
      ]),
      ...Object.entries(schema.types).flatMap(([token, t]): Array<[string, Record<string, Property>, string[]]> =>
        "properties" in t ? [[token, t.properties, t.required ?? []]] : [],
      ),
      ...Object.entries(schema.functions).flatMap(([token, f]): Array<[string, Record<string, Property>, string[]]> => [
        [`${token} outputs`, f.outputs.properties, f.outputs.required ?? []],
        ...(f.inputs ? [[`${token} inputs`, f.inputs.properties, f.inputs.required ?? []] as [string, Record<string, Property>, string[]]] : []),
      ]),
    ];
    const problems = objects.flatMap(([where, properties, required]) => [
      ...required.filter((key) => !(key in properties)).map((key) => `${where}: required ${key} is not a property`),
      ...Object.entries(properties).flatMap(([key, p]) => arraysWithoutItems(p).map(() => `${where}.${key}: an array without items`)),
    ]);
    expect(problems).toEqual([]);
  });

  it("keeps the API key secret, and the names SDKs are generated under", () => {
    expect(schema.config.variables.apiKey).toMatchObject({ type: "string", secret: true });
    expect(schema.provider.inputProperties).toEqual(schema.config.variables);
    expect(Object.keys(schema.config.variables).sort()).toEqual(["apiKey", "baseUrl", "skipCredentialsValidation", "teamId"]);
    expect(schema.language.python.packageName).toBe("pulumi_compute");
    expect(schema.language.nodejs.packageName).toBe("pulumi-compute");
    // Users' go.mod files name the Go SDK's module (the folder above this path) in their
    // `replace`; its resources ask for the package's version of the plugin.
    expect(schema.language.go).toEqual({ importBasePath: "example.com/pulumi-compute/sdk/go/compute", respectSchemaVersion: true });
  });

  it("offers every data-source function of provider/functions.ts, and only those", () => {
    const exported = Object.entries(functions).filter(([, value]) => typeof value === "function").map(([name]) => `compute:index:${name}`);
    expect(Object.keys(schema.functions).sort()).toEqual(exported.sort());
  });
});

function arraysWithoutItems(p: Property): Property[] {
  if (p.type === "array") return p.items ? arraysWithoutItems(p.items) : [p];
  return p.additionalProperties ? arraysWithoutItems(p.additionalProperties) : [];
}

/** A schema property read back into the lists' vocabulary (nested absence as `optional`). */
function fieldOf(p: Property): unknown {
  if (p.$ref) {
    const named = schema.types[p.$ref.replace("#/types/", "")]!;
    if ("enum" in named) return { type: named.type, enum: named.enum.map((e) => e.value) };
    const required = new Set(named.required ?? []);
    return {
      type: "object",
      properties: Object.fromEntries(Object.entries(named.properties).map(([key, member]) => [key, { ...(fieldOf(member) as object), ...(required.has(key) ? {} : { optional: true }) }])),
    };
  }
  if (p.type === "array") return { type: "array", items: fieldOf(p.items!) };
  if (p.type === "object") return { type: "map", additionalProperties: fieldOf(p.additionalProperties!) };
  return { type: p.type };
}

/** A list entry's type, as a schema can say it: nested `nullable` is absence too; outputs carry no enums. */
function expected(spec: FieldSpec, direction: "in" | "out"): unknown {
  const presence = (f: FieldSpec) => (f.optional || f.nullable ? { optional: true } : {});
  switch (spec.type) {
    case "string":
      return spec.enum && direction === "in" ? { type: "string", enum: [...spec.enum] } : { type: "string" };
    case "array":
      return { type: "array", items: expected(spec.items, direction) };
    case "map":
      return { type: "map", additionalProperties: expected(spec.additionalProperties, direction) };
    case "object":
      return {
        type: "object",
        properties: Object.fromEntries(Object.entries(spec.properties).map(([key, member]) => [key, { ...(expected(member, direction) as object), ...presence(member) }])),
      };
    default:
      return { type: spec.type };
  }
}

describe.each(RESOURCES.map((r) => [r.name, r.inputs, r.outputs] as const))("compute:index:%s says what the lists say", (resource, inputs: InputList, outputs: OutputList) => {
  const spec = schema.resources[`compute:index:${resource}`]!;

  it("inputs: names, types, requiredness, docs, secrecy", () => {
    expect(Object.fromEntries(Object.entries(spec.inputProperties).map(([key, p]) => [key, fieldOf(p)]))).toEqual(
      Object.fromEntries(Object.entries(inputs).map(([key, input]) => [key, expected(input, "in")])),
    );
    expect(spec.requiredInputs).toEqual(Object.keys(inputs).filter((key) => inputs[key]!.required));
    for (const [key, input] of Object.entries(inputs)) {
      expect(spec.inputProperties[key]!.description).toContain(input.doc);
      expect(spec.inputProperties[key]!.secret).toBe(input.secret);
    }
  });

  it("state: the inputs as given, then every output with its type, doc and secrecy", () => {
    expect(Object.keys(spec.properties)).toEqual([...Object.keys(inputs), ...Object.keys(outputs)]);
    for (const [key, input] of Object.entries(inputs)) expect(spec.properties[key]).toEqual(spec.inputProperties[key]);
    for (const [key, output] of Object.entries(outputs)) {
      expect({ key, type: fieldOf(spec.properties[key]!), doc: spec.properties[key]!.description, secret: spec.properties[key]!.secret }).toEqual({
        key,
        type: expected(output, "out"),
        doc: output.doc,
        secret: output.secret,
      });
    }
    // `name` is resolved by check (given or generated); a nullable output may be null.
    const always = [...("name" in spec.inputProperties ? ["name"] : []), ...spec.requiredInputs, ...Object.keys(outputs).filter((key) => !outputs[key]!.nullable && !outputs[key]!.optional)];
    expect([...spec.required].sort()).toEqual([...new Set(always)].sort());
  });
});

it("the Pod's jupyterPassword is secret in the schema as in the list", () => {
  expect(schema.resources["compute:index:Pod"]!.properties.jupyterPassword!.secret).toBe(true);
});

describe("the TypeScript resources' output properties are the schema's state", () => {
  /** What the resource classes add to the program's args for the provider; not part of the schema. */
  const ADDED = BOOKKEEPING_INPUTS;
  /** The dynamic provider's own property (the serialized provider). */
  const DYNAMIC = [PROVIDER_KEY, ...ADDED] as readonly string[];

  beforeAll(() =>
    pulumi.runtime.setMocks(
      { newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }), call: (args) => args.inputs },
      "schema-test",
      "dev",
    ),
  );

  const outputProperties = (resource: object) =>
    Object.keys(resource).filter((key) => pulumi.Output.isInstance((resource as Record<string, unknown>)[key]) && !["urn", "id"].includes(key));

  const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILXGDN/SclOozk1xsDztpmhGiKkkrfQB9SKoO8dSIQQZ me@example.com";
  it.each([
    ["Pod", () => new Pod("schema", { image: "alpine", cpu: { id: "cpu3c", vcpuCount: 2 }, env: { A: "1" }, desiredState: "STOPPED" })],
    ["Sandbox", () => new Sandbox("schema", { image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 }, labels: { team: "a" } })],
    ["NetworkVolume", () => new NetworkVolume("schema", { dataCenterId: "EU-RO-1", size: 10 })],
    ["Template", () => new Template("schema", { image: "alpine" })],
    ["RegistryCredential", () => new RegistryCredential("schema", { username: "u", password: "p" })],
    ["SshKey", () => new SshKey("schema", { publicKey: KEY })],
    ["ServerlessEndpoint", () => new ServerlessEndpoint("schema", { type: "QUEUE", image: "alpine", gpu: { pools: ["ADA_24"] }, scaling: { type: "QUEUE_DELAY", queueDelay: 1 } })],
  ] as const)("%s", async (resource, make) => {
    const state = Object.keys(schema.resources[`compute:index:${resource}`]!.properties);
    const outputs = RESOURCES.find((r) => r.name === resource)!.outputs;
    const made = make();
    // Registration (which serializes the provider) must finish inside the test.
    await new Promise((resolve) => made.urn.apply(resolve));
    const properties = outputProperties(made).filter((key) => !DYNAMIC.includes(key));
    // Every output (and `name`) is a property of the object, and every property the object has is in the schema's state.
    const named = "name" in RESOURCES.find((r) => r.name === resource)!.inputs ? ["name"] : [];
    expect(properties).toEqual(expect.arrayContaining([...named, ...Object.keys(outputs)]));
    expect(properties.filter((key) => !state.includes(key))).toEqual([]);
  });
});

describe("each input's onChange is what the diff does", () => {
  /** A value different from `old` (absent: any value). */
  function changed(spec: FieldSpec): unknown {
    switch (spec.type) {
      case "string":
        return spec.enum ? spec.enum[spec.enum.length - 1] : "changed";
      case "number":
      case "integer":
        return 7;
      case "boolean":
        return true;
      case "array":
        return [changed(spec.items)];
      case "map":
        return { KEY: changed(spec.additionalProperties) };
      case "object":
        return Object.fromEntries(Object.entries(spec.properties).map(([key, member]) => [key, changed(member)]));
    }
  }

  const effect = (replaces: number, updates: number) => (replaces > 0 ? "replace" : updates > 0 ? "update" : "nothing");
  const decided = (list: InputList) => Object.entries(list).filter(([, spec]) => spec.onChange !== "depends");

  // Every kind of the registry, from its example as recorded: a kind added later is checked with no edit here.
  it.each(RESOURCES.flatMap((r) => decided(r.inputs).map(([key, spec]) => [r.name, key, spec, r] as const)))("%s %s", (_resource, key, spec, definition) => {
    const olds: Props = { name: "recorded", ...definition.example };
    const diff = diffOf(definition, olds, { ...olds, [key]: changed(spec) });
    expect(effect(diff.replaces.length, diff.updates.length)).toBe(spec.onChange);
  });
});
