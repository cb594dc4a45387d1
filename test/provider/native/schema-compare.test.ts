/**
 * The schema gate's comparison (provider/native/schema-compare.ts) on edits of this package's own
 * schema: each kind of breaking change is found, named by its subject, and allowed only by a
 * changelog note that says how stacks move.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { breakingChanges, unacknowledged, type PackageSchema } from "../../../provider/native/schema-compare";

const SCHEMA = path.join(__dirname, "..", "..", "..", "schema.json");
const original = (): any => JSON.parse(readFileSync(SCHEMA, "utf8"));
const POD = "compute:index:Pod";

/** The schema with one edit applied. */
function edited(edit: (schema: any) => void): PackageSchema {
  const schema = original();
  edit(schema);
  return schema;
}

describe("breaking changes between two schemas", () => {
  it("the same schema, or one that only adds an optional input, an output and a resource, breaks nothing", () => {
    expect(breakingChanges(original(), original())).toEqual([]);
    const added = edited((s) => {
      s.resources[POD].inputProperties.note = { type: "string", description: "A note. A change updates the resource in place." };
      s.resources[POD].properties.noted = { type: "string", description: "The note." };
      s.resources["compute:index:Thing"] = { inputProperties: {}, properties: {} };
    });
    expect(breakingChanges(original(), added)).toEqual([]);
  });

  it("a removed, retyped or newly required input; an input that now replaces; a removed or optional output", () => {
    const changes = breakingChanges(
      original(),
      edited((s) => {
        const pod = s.resources[POD];
        delete pod.inputProperties.registry;
        pod.inputProperties.args = { ...pod.inputProperties.args, type: "integer" };
        pod.requiredInputs = [...(pod.requiredInputs ?? []), "image"];
        pod.inputProperties.env.description = pod.inputProperties.env.description.replace("A change updates the resource in place.", "A change replaces the resource.");
        delete pod.properties.argsApplied;
        pod.required = pod.required.filter((name: string) => name !== "costPerHour");
      }),
    );
    expect(changes).toEqual(
      expect.arrayContaining([
        { subject: `${POD}.registry`, change: "input removed" },
        { subject: `${POD}.args`, change: "input type changed from string to integer" },
        { subject: `${POD}.image`, change: "input is now required" },
        { subject: `${POD}.env`, change: "a change now replaces the resource (it updated it in place)" },
        { subject: `${POD}.argsApplied`, change: "output removed" },
        { subject: `${POD}.costPerHour`, change: "output is no longer always present" },
      ]),
    );
    expect(changes).toHaveLength(6);
  });

  it("a removed resource, function or type, and a type's member removed or newly required", () => {
    const schema = original();
    const someFunction = Object.keys(schema.functions)[0]!;
    const inputType = (schema.resources[POD].inputProperties.gpu.$ref as string).replace("#/types/", "");
    const member = Object.keys(schema.types[inputType].properties).find((name) => !(schema.types[inputType].required ?? []).includes(name))!;
    const changes = breakingChanges(
      schema,
      edited((s) => {
        delete s.resources["compute:index:Sandbox"];
        delete s.functions[someFunction];
        s.types[inputType].required = [...(s.types[inputType].required ?? []), member];
        delete s.types[inputType].properties.id;
      }),
    );
    expect(changes).toEqual(
      expect.arrayContaining([
        { subject: "compute:index:Sandbox", change: "resource removed" },
        { subject: someFunction, change: "function removed" },
        { subject: `${inputType}.${member}`, change: "input is now required" },
        { subject: `${inputType}.id`, change: "property removed" },
      ]),
    );
  });
});

describe("a changelog note allows a breaking change", () => {
  const change = { subject: `${POD}.registry`, change: "input removed" };
  const note = `- \`${POD}.registry\` is gone: use \`templateId\`. Stacks: the next \`up\` records the template's registry; nothing is replaced.`;
  const changelog = (unreleased: string, released = "") => `# Changelog\n\n## Unreleased\n\n${unreleased}\n\n## 0.3.0 — 2026-12-01\n\n${released}\n\n## 0.2.0\n\n### Breaking\n\n- \`${POD}.args\`: old. Stacks: nothing.\n`;

  it("when the Breaking list of the unreleased section, or of a release since the baseline, names it with how stacks move", () => {
    expect(unacknowledged([change], changelog(`### Breaking\n\n${note}\n\n### Added\n\n- something`), "0.2.0")).toEqual([]);
    // The release commit moved the note under its version, and is checked before it is recorded.
    expect(unacknowledged([change], changelog("", `### Breaking\n\n${note}`), "0.2.0")).toEqual([]);
  });

  it("not without how stacks move, not under another heading, and not by the baseline's own or an earlier section", () => {
    expect(unacknowledged([change], changelog(`### Breaking\n\n- \`${POD}.registry\` is gone.`), "0.2.0")).toEqual([change]);
    expect(unacknowledged([change], changelog(`### Added\n\n- \`${POD}.registry\`: Stacks: fine.`), "0.2.0")).toEqual([change]);
    expect(unacknowledged([change], changelog("", `### Breaking\n\n${note}`), "0.3.0")).toEqual([change]);
    expect(unacknowledged([{ subject: `${POD}.args`, change: "input removed" }], changelog(""), "0.2.0")).toHaveLength(1);
  });
});

describe("the settings every stack gives, and enum values", () => {
  it("a removed stack config key or provider input, a newly required setting, a removed enum value", () => {
    const schema = original();
    const enumType = Object.keys(schema.types).find((token) => schema.types[token].enum)!;
    const value = schema.types[enumType].enum[0].value as string;
    const changes = breakingChanges(
      schema,
      edited((s) => {
        delete s.config.variables.teamId;
        delete s.provider.inputProperties.teamId;
        s.provider.requiredInputs = [...(s.provider.requiredInputs ?? []), "baseUrl"];
        s.types[enumType].enum = s.types[enumType].enum.slice(1);
      }),
    );
    expect(changes).toEqual(
      expect.arrayContaining([
        { subject: "compute:config.teamId", change: "setting removed" },
        { subject: "pulumi:providers:compute.teamId", change: "input removed" },
        { subject: "pulumi:providers:compute.baseUrl", change: "input is now required" },
        { subject: `${enumType}.${value}`, change: "enum value removed" },
      ]),
    );
    expect(changes).toHaveLength(4);
  });
});
