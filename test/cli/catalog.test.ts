/** `compute catalog gpus|datacenters|cpus|templates` against the emulator. */
import { parse as parseYaml } from "yaml";
import type { CpuType, DataCenter, GpuType, Template } from "../../sdk";
import { defaultFixture } from "../helpers/fixtures";
import { tableRows, useEmulator } from "./helpers";

const emu = useEmulator();
const fixture = defaultFixture();

async function lastQuery(path: string): Promise<URLSearchParams> {
  const request = (await emu.control.requests()).filter((q) => q.method === "GET" && q.path === path).pop()!;
  return new URLSearchParams(request.query);
}

test("gpus: one row per GPU type with memory, availability, prices, pool and CUDA versions", async () => {
  const [table, json] = await Promise.all([emu.run(["catalog", "gpus"]), emu.run(["catalog", "gpus", "--json"])]);
  expect(table.code).toBe(0);
  expect(table.stderr).toBe("");
  const gpus = JSON.parse(json.stdout) as GpuType[];
  expect(gpus.map((g) => g.id)).toEqual(fixture.gpuTypes.map((g) => g.id));
  expect(gpus.every((g) => g.availability !== undefined)).toBe(true); // asked with include=AVAILABILITY
  const [head, ...rows] = tableRows(table.stdout);
  expect(head).toEqual(["ID", "NAME", "POOL", "MEMORY GB", "AVAILABILITY", "SECURE $/HR", "COMMUNITY $/HR", "CUDA"]);
  expect(rows).toHaveLength(gpus.length);
  for (const [i, gpu] of gpus.entries()) {
    const cuda = (gpu.cudaVersions ?? []).filter((c) => c.available).map((c) => c.version).join(", ") || "-";
    expect(rows[i]).toEqual([
      gpu.id,
      gpu.name,
      gpu.pool ?? "-",
      String(gpu.memory),
      gpu.availability,
      gpu.secure ? `$${gpu.price.secure.toFixed(2)}` : "-",
      gpu.community ? `$${gpu.price.community.toFixed(2)}` : "-",
      cuda,
    ]);
  }
  const query = await lastQuery("/v2/catalog/gpus");
  expect(query.get("include")).toBe("AVAILABILITY");
});

test("datacenters: region, global network and the GPU types in stock, best first", async () => {
  const [table, json] = await Promise.all([emu.run(["catalog", "datacenters"]), emu.run(["catalog", "datacenters", "--json"])]);
  expect(table.code).toBe(0);
  const dcs = JSON.parse(json.stdout) as DataCenter[];
  expect(dcs.map((d) => d.id)).toEqual(fixture.dataCenters.map((d) => d.id));
  const [head, ...rows] = tableRows(table.stdout);
  expect(head).toEqual(["ID", "NAME", "REGION", "GLOBAL NETWORK", "GPU AVAILABILITY"]);
  const rank = { HIGH: 0, MEDIUM: 1, LOW: 2, NONE: 3 } as const;
  for (const [i, dc] of dcs.entries()) {
    const inStock = (dc.gpuAvailability ?? []).filter((g) => g.availability !== "NONE");
    const summary = rows[i]![4]!;
    expect(rows[i]!.slice(0, 4)).toEqual([dc.id, dc.name, dc.region, dc.globalNetwork ? "yes" : "no"]);
    if (inStock.length === 0) {
      expect(summary).toBe("none");
      continue;
    }
    const entries = summary.split(", ");
    expect(entries).toHaveLength(inStock.length);
    const levels = entries.map((e) => e.split(" ").pop() as keyof typeof rank);
    expect(levels.map((l) => rank[l])).toEqual([...levels.map((l) => rank[l])].sort((a, b) => a - b));
    for (const g of inStock) expect(entries).toContain(`${g.name ?? g.id} ${g.availability}`);
  }
  expect(rows.some((row) => /, /.test(row[4]!) && / (HIGH|MEDIUM|LOW)$/.test(row[4]!))).toBe(true);
  expect((await lastQuery("/v2/catalog/datacenters")).get("include")).toBe("GPU_AVAILABILITY");
});

test("datacenters --region: only that region, passed to the service", async () => {
  const r = await emu.run(["catalog", "datacenters", "--region", "EUROPE", "--output", "yaml"]);
  expect(r.code).toBe(0);
  const dcs = parseYaml(r.stdout) as DataCenter[];
  const expected = fixture.dataCenters.filter((d) => d.region === "EUROPE").map((d) => d.id);
  expect(expected.length).toBeGreaterThan(0);
  expect(dcs.map((d) => d.id)).toEqual(expected);
  expect((await lastQuery("/v2/catalog/datacenters")).get("regions")).toBe("EUROPE");
});

test("cpus: vCPU range, RAM per vCPU and price per vCPU", async () => {
  const [table, json] = await Promise.all([emu.run(["catalog", "cpus"]), emu.run(["catalog", "cpus", "--json"])]);
  expect(table.code).toBe(0);
  const cpus = JSON.parse(json.stdout) as CpuType[];
  expect(cpus.map((c) => c.id)).toEqual(fixture.cpuFlavors.map((c) => c.id));
  const [head, ...rows] = tableRows(table.stdout);
  expect(head).toEqual(["ID", "NAME", "VCPU", "RAM GB/VCPU", "$/VCPU/HR", "AVAILABILITY"]);
  for (const [i, cpu] of cpus.entries()) {
    expect(rows[i]!.slice(0, 5)).toEqual([
      cpu.id,
      cpu.name,
      cpu.vcpu.min === cpu.vcpu.max ? `${cpu.vcpu.min}` : `${cpu.vcpu.min}-${cpu.vcpu.max}`,
      String(cpu.ramGbPerVcpu),
      `$${cpu.price.securePerVcpu.toFixed(4)}`,
    ]);
  }
});

test("templates: image, category, serverless, public", async () => {
  const [table, json] = await Promise.all([emu.run(["catalog", "templates"]), emu.run(["catalog", "templates", "--json"])]);
  expect(table.code).toBe(0);
  const templates = JSON.parse(json.stdout) as Template[];
  expect(templates.length).toBeGreaterThan(0);
  const [head, ...rows] = tableRows(table.stdout);
  expect(head).toEqual(["ID", "NAME", "IMAGE", "CATEGORY", "SERVERLESS", "PUBLIC"]);
  expect(rows).toEqual(templates.map((t) => [t.id, t.name, t.image, t.category, t.serverless ? "yes" : "no", t.public ? "yes" : "no"]));
  expect(templates.some((t) => t.serverless)).toBe(true);
});
