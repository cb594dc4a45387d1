/**
 * `compute catalog gpus|datacenters|cpus|templates`: the read-only listings a user picks
 * placement candidates from (v2 document, "Catalog reads used before creating a pod"), with
 * current availability where the service reports it.
 */
import { Command, Option } from "commander";
import type { CpuType, DataCenter, GpuType, Template } from "../../sdk";
import { DataCenterRegion } from "../../contract";
import type { Column } from "../output";
import { withSpinner } from "../spinner";
import { action, examples } from "./shared";

const LEVEL_ORDER: Record<string, number> = { HIGH: 0, MEDIUM: 1, LOW: 2, NONE: 3 };

const price = (value: number | undefined) => (value === undefined ? undefined : `$${value.toFixed(2)}`);

const GPU_COLUMNS: Array<Column<GpuType>> = [
  { header: "ID", value: (g) => g.id },
  { header: "NAME", value: (g) => g.name },
  { header: "POOL", value: (g) => g.pool },
  { header: "MEMORY GB", value: (g) => g.memory, align: "right" },
  { header: "AVAILABILITY", value: (g) => g.availability },
  { header: "SECURE $/HR", value: (g) => (g.secure ? price(g.price.secure) : undefined), align: "right" },
  { header: "COMMUNITY $/HR", value: (g) => (g.community ? price(g.price.community) : undefined), align: "right" },
  { header: "CUDA", value: (g) => (g.cudaVersions ?? []).filter((c) => c.available).map((c) => c.version).join(", ") },
];

/** `H100 SXM HIGH, A100 SXM LOW`: the GPU types with stock in a data center, best first. */
function gpuSummary(dc: DataCenter): string {
  return (dc.gpuAvailability ?? [])
    .filter((g) => g.availability !== "NONE")
    .map((g, index) => ({ ...g, index }))
    .sort((a, b) => LEVEL_ORDER[a.availability]! - LEVEL_ORDER[b.availability]! || a.index - b.index)
    .map((g) => `${g.name ?? g.id} ${g.availability}`)
    .join(", ");
}

const DC_COLUMNS: Array<Column<DataCenter>> = [
  { header: "ID", value: (d) => d.id },
  { header: "NAME", value: (d) => d.name },
  { header: "REGION", value: (d) => d.region },
  { header: "GLOBAL NETWORK", value: (d) => d.globalNetwork },
  { header: "GPU AVAILABILITY", value: (d) => gpuSummary(d) || "none" },
];

const CPU_COLUMNS: Array<Column<CpuType>> = [
  { header: "ID", value: (c) => c.id },
  { header: "NAME", value: (c) => c.name },
  { header: "VCPU", value: (c) => (c.vcpu.min === c.vcpu.max ? `${c.vcpu.min}` : `${c.vcpu.min}-${c.vcpu.max}`), align: "right" },
  { header: "RAM GB/VCPU", value: (c) => c.ramGbPerVcpu, align: "right" },
  { header: "$/VCPU/HR", value: (c) => `$${c.price.securePerVcpu.toFixed(4)}`, align: "right" },
  { header: "AVAILABILITY", value: (c) => c.availability },
];

const TEMPLATE_COLUMNS: Array<Column<Template>> = [
  { header: "ID", value: (t) => t.id },
  { header: "NAME", value: (t) => t.name },
  { header: "IMAGE", value: (t) => t.image },
  { header: "CATEGORY", value: (t) => t.category },
  { header: "SERVERLESS", value: (t) => t.serverless },
  { header: "PUBLIC", value: (t) => t.public },
];

export function catalogCommand(): Command {
  const catalog = new Command("catalog").description("Read the catalog: GPU types, data centers, CPU flavors and public templates");
  examples(catalog, ["compute catalog gpus", "compute catalog datacenters --region EUROPE"]);

  const gpus = catalog
    .command("gpus")
    .description("GPU types with pod availability, prices per GPU-hour, pools and CUDA versions on offer")
    .action(
      action(async (ctx) => {
        const rows = await withSpinner("Reading GPU types", () => ctx.sdk().catalog.gpuTypes({ includeAvailability: true }));
        ctx.printer.list(rows, GPU_COLUMNS, { empty: "No GPU types." });
      }),
    );
  examples(gpus, ["compute catalog gpus", "compute catalog gpus --json | jq -r '.[] | select(.availability == \"HIGH\") | .id'"]);

  const datacenters = catalog
    .command("datacenters")
    .description("Data centers with their region, global networking and per-GPU availability")
    .addOption(new Option("--region <region>", "only data centers in this region").choices(DataCenterRegion.options))
    .action(
      action(async (ctx, flags: { region?: string }) => {
        const rows = await withSpinner("Reading data centers", () =>
          ctx.sdk().catalog.dataCenters({ regions: flags.region, includeGpuAvailability: true }),
        );
        ctx.printer.list(rows, DC_COLUMNS, { empty: "No data centers." });
      }),
    );
  examples(datacenters, ["compute catalog datacenters", "compute catalog datacenters --region NORTH_AMERICA --output yaml"]);

  const cpus = catalog
    .command("cpus")
    .description("CPU flavors with their vCPU range, RAM per vCPU and price per vCPU-hour")
    .action(
      action(async (ctx) => {
        const rows = await withSpinner("Reading CPU flavors", () => ctx.sdk().catalog.cpuFlavors());
        ctx.printer.list(rows, CPU_COLUMNS, { empty: "No CPU flavors." });
      }),
    );
  examples(cpus, ["compute catalog cpus"]);

  const templates = catalog
    .command("templates")
    .description("Public templates (image, category, whether serverless)")
    .action(
      action(async (ctx) => {
        const rows = await withSpinner("Reading templates", () => ctx.sdk().catalog.templates());
        ctx.printer.list(rows, TEMPLATE_COLUMNS, { empty: "No templates." });
      }),
    );
  examples(templates, ["compute catalog templates", "compute catalog templates --json"]);

  return catalog;
}
