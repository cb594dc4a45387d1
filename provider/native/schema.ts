/**
 * The Pulumi package schema of the native plugin `pulumi-resource-compute` (package `compute`),
 * generated from what the TypeScript resources are built from: each resource's input and output
 * lists from the registry (provider/resources/), functions from function-shapes.ts.
 * `schema.json` at the repository root is this function's output (`npm run schema`;
 * test/provider/schema.test.ts fails when the two differ).
 *
 * Mapping: a nested object becomes a named type `compute:index:<Resource><Path>` under `types`
 * (an array's item takes the singular of the member's name), a string with `enum` values that a
 * program gives a named enum type; a map is `{type: object, additionalProperties}`. Pulumi has
 * no null: a nullable or optional member is left out of `required`. A resource's `properties` (its state)
 * are its inputs, echoed as `check` resolved them, and its outputs (`name` always present);
 * the provider-internal inputs the TypeScript classes add (`namePrefix`, `ownerMark`, …, see
 * `AddedInputs`) are not part of the schema.
 */
import type { FieldSpec } from "../properties";
import { RESOURCES } from "../resources";
import type { InputList, OutputList } from "../resources/definition";
import { PACKAGE_NAME, nativeToken } from "../../contract/tokens";
import { FUNCTION_SHAPES, type FunctionShape } from "./function-shapes";


/** A property or type reference, as the schema spells it. */
export type TypeSpec = {
  type?: string;
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  $ref?: string;
};
export type PropertySpec = TypeSpec & { description?: string; secret?: boolean };
type ObjectTypeSpec = { type: "object"; properties: Record<string, PropertySpec>; required?: string[] };
type EnumTypeSpec = { type: "string"; enum: Array<{ value: string }> };

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
// `publicPorts` → `PublicPort`, `sandboxes` → `Sandbox`: an item type names one item.
const singular = (name: string) =>
  name.replace(/(x|ch|sh|ss)es$/, "$1").replace(/ies$/, "y").replace(/([^s])s$/, "$1");

/**
 * Where a value goes: what a program gives (inputs, function arguments) turns a string's `enum`
 * into a named enum type the SDKs check; what the provider answers keeps it a string (a result
 * is read, not written, and the SDK's tolerant reading already settled its values).
 */
type Direction = "in" | "out";

/** Collects the named types while properties are translated; one spec per token. */
class Types {
  readonly specs: Record<string, ObjectTypeSpec | EnumTypeSpec> = {};

  private add(name: string, spec: ObjectTypeSpec | EnumTypeSpec): TypeSpec {
    const tok = nativeToken(name);
    const known = this.specs[tok];
    if (known && JSON.stringify(known) !== JSON.stringify(spec)) throw new Error(`two different types would be named ${tok}`);
    this.specs[tok] = spec;
    return { $ref: `#/types/${tok}` };
  }

  /** The schema type of `field`; `name` names the type it declares, if it is an object or an enum. */
  typeOf(field: FieldSpec, name: string, direction: Direction): TypeSpec {
    switch (field.type) {
      case "string":
        return field.enum && direction === "in" ? this.add(name, { type: "string", enum: field.enum.map((value) => ({ value })) }) : { type: "string" };
      case "number":
      case "integer":
      case "boolean":
        return { type: field.type };
      case "array":
        return { type: "array", items: this.typeOf(field.items, singular(name), direction) };
      case "map":
        return { type: "object", additionalProperties: this.typeOf(field.additionalProperties, name, direction) };
      case "object":
        return this.add(name, this.objectOf(field.properties, name, direction));
    }
  }

  /** An object type: its members as properties, the ones always present as `required`. */
  objectOf(members: Readonly<Record<string, FieldSpec>>, name: string, direction: Direction): ObjectTypeSpec {
    const properties = Object.fromEntries(Object.entries(members).map(([key, field]) => [key, this.typeOf(field, name + pascal(key), direction)]));
    const required = Object.keys(members).filter((key) => !members[key]!.optional && !members[key]!.nullable);
    return { type: "object", properties, ...(required.length ? { required } : {}) };
  }
}

/** What each input's description says a change does (read back by the schema gate, schema-compare.ts). */
export const CHANGE_NOTES: Readonly<Record<InputList[string]["onChange"], string>> = {
  update: "A change updates the resource in place.",
  replace: "A change replaces the resource.",
  depends: "A change updates in place or replaces, depending on the values (see the provider's docs).",
  nothing: "A change does nothing once the resource exists.",
};

function inputProperties(types: Types, resource: string, inputs: InputList): Record<string, PropertySpec> {
  return Object.fromEntries(
    Object.entries(inputs).map(([key, spec]) => [
      key,
      { ...types.typeOf(spec, resource + pascal(key), "in"), description: `${spec.doc} ${CHANGE_NOTES[spec.onChange]}`, ...(spec.secret ? { secret: true } : {}) },
    ]),
  );
}

function resourceSpec(types: Types, resource: string, description: string, inputs: InputList, outputs: OutputList) {
  const inputProps = inputProperties(types, resource, inputs);
  const outputProps = Object.fromEntries(
    Object.entries(outputs).map(([key, spec]) => [
      key,
      { ...types.typeOf(spec, resource + pascal(key), "out"), description: spec.doc, ...(spec.secret ? { secret: true } : {}) },
    ]),
  );
  const clash = Object.keys(outputs).filter((key) => key in inputs);
  if (clash.length) throw new Error(`${resource}: ${clash.join(", ")} both an input and an output`);
  const requiredInputs = Object.keys(inputs).filter((key) => inputs[key]!.required);
  return {
    description,
    inputProperties: inputProps,
    requiredInputs,
    // The state: inputs as `check` resolved them (so a `name` input is always set), then the live facts.
    properties: { ...inputProps, ...outputProps },
    required: [
      ...new Set([
        ...("name" in inputs ? ["name"] : []),
        ...requiredInputs,
        ...Object.keys(outputs).filter((key) => !outputs[key]!.nullable && !outputs[key]!.optional),
      ]),
    ],
  };
}

function functionSpec(types: Types, name: string, shape: FunctionShape) {
  const root = pascal(name);
  const args = Object.keys(shape.args).length ? { inputs: types.objectOf(shape.args, root, "in") } : {};
  const outputs = shape.listMember
    ? types.objectOf({ [shape.listMember]: { type: "array", items: { type: "object", properties: shape.result } } }, root, "out")
    : types.objectOf(shape.result, root, "out");
  return { description: shape.doc, ...args, outputs };
}

/** The provider's settings: stack config `compute:<key>`, or an explicit provider's inputs. */
const SETTINGS: Record<string, PropertySpec> = {
  baseUrl: { type: "string", description: "The service URL. Required: without it, `COMPUTE_BASE_URL` from the environment." },
  apiKey: {
    type: "string",
    secret: true,
    description:
      "The API key. Default: `COMPUTE_API_KEY` from the environment. Set in the stack config, it is recorded in the state (as ciphertext) as the provider's configuration; after a rotation, `refresh` and `destroy` use the current key when the recorded one is refused.",
  },
  teamId: { type: "string", description: "The team to act for. Default: `COMPUTE_TEAM_ID` from the environment." },
  skipCredentialsValidation: {
    type: "boolean",
    description: "Skip the check of the key that starts every run (for a preview without the service). Default: `COMPUTE_SKIP_CREDENTIALS_VALIDATION` from the environment, else false.",
  },
};

/**
 * The whole package schema for plugin version `version` (the package.json version). Function
 * result types are named after the function and the item (`compute:index:GetGpuTypesGpuType`), so
 * they never clash with a resource's types.
 */
export function packageSchema(version: string): object {
  const types = new Types();
  const resources = Object.fromEntries(RESOURCES.map((r) => [nativeToken(r.name), resourceSpec(types, r.name, r.description, r.inputs, r.outputs)]));
  const functions = Object.fromEntries(Object.entries(FUNCTION_SHAPES).map(([name, shape]) => [nativeToken(name), functionSpec(types, name, shape)]));
  return {
    name: PACKAGE_NAME,
    displayName: "Compute Service",
    version,
    description: "GPU/CPU pods and sandboxes of the Compute Service REST API v2.",
    keywords: ["pulumi", "compute", "gpu", "category/cloud", "kind/native"],
    license: "Apache-2.0",
    config: { variables: SETTINGS },
    provider: { description: "The compute provider: where the service is and which key to use.", inputProperties: SETTINGS },
    resources,
    functions,
    types: Object.fromEntries(Object.entries(types.specs).sort(([a], [b]) => a.localeCompare(b))),
    language: {
      nodejs: { packageName: "pulumi-compute" },
      // respectSchemaVersion: the generated SDK carries the package's version, so its resources
      // ask the engine for that version of the plugin (without it, 0.0.0, which nothing installs).
      python: { packageName: "pulumi_compute", respectSchemaVersion: true },
      // The SDK is not published: its module (the folder above this path) is the generator's own
      // default for a package without a repository, and a program's go.mod points it at the unpacked release
      // module with a `replace` (docs/install.md, "Go"). Publishing changes this one line.
      go: { importBasePath: "example.com/pulumi-compute/sdk/go/compute", respectSchemaVersion: true },
    },
  };
}
