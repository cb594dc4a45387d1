/**
 * The output lists (provider/resources/<resource>/outputs.ts) are the one home of each resource's outputs: the
 * docs' Outputs tables, the facts the runtime records and the resource objects' output
 * properties must all say the same.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type { FieldSpec, OutputList } from "../../provider/resources/definition";
import { CLUSTER_OUTPUTS } from "../../provider/resources/cluster/outputs";
import { POD_OUTPUTS } from "../../provider/resources/pod/outputs";
import { SANDBOX_OUTPUTS } from "../../provider/resources/sandbox/outputs";
import { Pod, Sandbox } from "../../provider/classes";
import { STATE_VERSION_KEY } from "../../provider/runtime/state-versions";
import { checked, runtime, useProvider } from "./helpers";

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

describe("docs/provider.md documents exactly the listed outputs", () => {
  it.each([
    ["Pod", POD_OUTPUTS],
    ["Sandbox", SANDBOX_OUTPUTS],
    ["Cluster", CLUSTER_OUTPUTS],
  ] as const)("%s: the Outputs table is the list's", (resource, list) => {
    expect(documentedTable(resource)).toEqual(docsTable(list));
  });
});

describe("the runtime records exactly the listed facts next to the inputs", () => {
  useProvider(); // the runtime creates against a started emulator

  /** What create records, less what the program (or check) gave. */
  async function recordedFacts(kind: "pod" | "sandbox", args: Record<string, unknown>): Promise<string[]> {
    const inputs = await checked(kind, args);
    const created = await runtime.resources[kind].create(inputs);
    await runtime.resources[kind].remove(created.id, created.outs);
    return Object.keys(created.outs).filter((key) => !(key in inputs)).sort();
  }

  it("Pod", async () => {
    const facts = await recordedFacts("pod", { name: "listed", image: "alpine", cpu: { id: "cpu3c", vcpuCount: 2 }, startJupyter: true });
    expect(facts).toEqual([...Object.keys(POD_OUTPUTS), STATE_VERSION_KEY].sort());
  });

  it("Sandbox", async () => {
    const facts = await recordedFacts("sandbox", { name: "listed", image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 } });
    expect(facts).toEqual([...Object.keys(SANDBOX_OUTPUTS), STATE_VERSION_KEY].sort());
  });
});

describe("a resource object has an output property per listed output", () => {
  beforeAll(() =>
    pulumi.runtime.setMocks(
      {
        // Each output resolves to its own name, so a property wired to the wrong key shows.
        newResource: (args) => ({ id: `${args.name}-id`, state: { ...args.inputs, ...Object.fromEntries(Object.keys({ ...POD_OUTPUTS, ...SANDBOX_OUTPUTS }).map((key) => [key, key])) } }),
        call: (args) => args.inputs,
      },
      "outputs-test",
      "dev",
    ),
  );

  const valueOf = (output: pulumi.Output<unknown>) => new Promise((resolve) => output.apply(resolve));

  it.each([
    ["Pod", POD_OUTPUTS, "podId", () => new Pod("listed", { name: "listed", image: "alpine", cpu: { id: "cpu3c", vcpuCount: 2 } })],
    ["Sandbox", SANDBOX_OUTPUTS, "sandboxId", () => new Sandbox("listed", { name: "listed", image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 } })],
  ] as const)("%s", async (_resource, list, idOutput, make) => {
    const resource = make() as unknown as Record<string, pulumi.Output<unknown>>;
    const values = await Promise.all(Object.keys(list).map((key) => valueOf(resource[key]!)));
    // The id output is the resource's id (known in a preview of its update); every other output its own key.
    expect(values).toEqual(Object.keys(list).map((key) => (key === idOutput ? "listed-id" : key)));
    expect(await valueOf(resource.name!)).toBe("listed");
  });
});
