/**
 * `compute ps`: every pod, sandbox, network volume and serverless endpoint of the account in one table, with its rate, its GPU or
 * compute, and the stack that owns it (the owner mark, sdk/ownership.ts) or `unmanaged`, then
 * the total of what bills. GPUs are rented by the hour: this is the "what is running up the
 * bill, and does any stack know about it" view.
 *
 * Cluster member pods are included (`includeClusterPods=true`): they bill like any pod even
 * though the pod list leaves them out by default.
 *
 * JSON and YAML print the rows, not the API objects: a pod's `env` carries secrets (an injected
 * `JUPYTER_PASSWORD`, users' tokens) that a listing has no reason to repeat.
 *
 * An item the SDK could not read is listed all the same (status `unreadable`, owner `unknown`)
 * with a note on stderr saying why: it may be billing.
 */
import { Command, InvalidArgumentError, Option } from "commander";
import type { Context } from "../context";
import { PermissionDeniedError } from "../../sdk";
import { endpointRow, money, podRow, sandboxRow, selectRows, totalLine, totalOf, unreadableRow, volumeRow, type InventoryRow, type RowFilter, type SetAsideLike } from "../inventory";
import type { Column } from "../output";
import { withSpinner } from "../spinner";
import { action, examples } from "./shared";

const COLUMNS: Array<Column<InventoryRow>> = [
  { header: "KIND", value: (r) => (r.cluster ? "cluster pod" : r.kind) },
  { header: "NAME", value: (r) => r.name },
  { header: "ID", value: (r) => r.id },
  { header: "STATUS", value: (r) => (r.unreadable ? "unreadable" : r.terminationReason ? `${r.status ?? "-"} (${r.terminationReason})` : r.status) },
  { header: "$/HR", value: (r) => (r.costPerHr === null ? undefined : money(r.costPerHr)), align: "right" },
  { header: "GPU / COMPUTE", value: (r) => r.resources },
  { header: "OWNER", value: (r) => r.owner?.label ?? (r.unreadable ? "unknown" : "unmanaged") },
];

/** `project/stack`: the first two parts of an owner label. */
function stackName(value: string): string {
  if (!/^[^/\s]+\/[^/\s]+$/.test(value.trim())) throw new InvalidArgumentError("Expected <project>/<stack>, e.g. ml/dev.");
  return value.trim();
}

export function psCommand(): Command {
  const ps = new Command("ps")
    .description("List the account's pods, sandboxes, network volumes and serverless endpoints that bill or may bill: status, $/hr, GPU or compute, and the owning stack (or unmanaged), with the total")
    .option("-a, --all", "also pods and sandboxes that bill no more (terminated pods, terminated and failed sandboxes)")
    .addOption(new Option("--unmanaged", "only resources without an owner mark (not created by this provider's creates: made elsewhere, or brought in with adoptPodId/adoptSandboxId)").conflicts("stack"))
    .addOption(new Option("--stack <project/stack>", "only resources owned by this stack").argParser(stackName))
    .action(action((ctx, flags: RowFilter) => list(ctx, flags)));
  examples(ps, ["compute ps", "compute ps --unmanaged", "compute ps --stack ml/dev --all", "compute ps --json | jq '.total.costPerHr'"]);
  return ps;
}

async function list(ctx: Context, filter: RowFilter): Promise<void> {
  const client = ctx.sdk();
  const none = { items: [], setAside: [] };
  const notReadable: string[] = [];
  /**
   * Volumes and endpoints are listed where the key may read them: a key scoped to pods and
   * sandboxes (what bills by the hour) still gets its listing, with a note of what is left out.
   */
  const ifReadable = <T>(what: string, list: Promise<{ items: T[]; setAside: SetAsideLike[] }>) =>
    list.catch((error: unknown) => {
      if (!(error instanceof PermissionDeniedError)) throw error;
      notReadable.push(what);
      return { items: [] as T[], setAside: [] as SetAsideLike[] };
    });
  const [pods, sandboxes, ended, volumes, endpoints] = await withSpinner("Listing pods, sandboxes, volumes and endpoints", () =>
    Promise.all([
      client.pods.page({ includeClusterPods: true }),
      client.sandboxes.page(),
      // The sandbox list leaves terminated ones out unless asked for them alone.
      filter.all ? client.sandboxes.page({ state: "TERMINATED" }) : Promise.resolve(none),
      ifReadable("network volumes", client.networkVolumes.page()),
      ifReadable("serverless endpoints", client.serverless.page()),
    ]),
  );
  const rows = selectRows(
    [
      ...pods.items.map(podRow),
      ...pods.setAside.map((item) => unreadableRow("pod", item)),
      ...[...sandboxes.items, ...ended.items].map(sandboxRow),
      ...sandboxes.setAside.map((item) => unreadableRow("sandbox", item)),
      ...ended.setAside.map((item) => unreadableRow("sandbox", item, false)),
      ...volumes.items.map(volumeRow),
      ...volumes.setAside.map((item) => unreadableRow("volume", item)),
      ...endpoints.items.map(endpointRow),
      ...endpoints.setAside.map((item) => unreadableRow("endpoint", item)),
    ],
    filter,
  );
  const total = totalOf(rows);
  if (notReadable.length > 0) ctx.printer.note(`(${notReadable.join(" and ")} not listed: this API key may not read them)`);
  for (const row of rows.filter((r) => r.unreadable)) {
    const which = [row.id, row.name === null ? null : JSON.stringify(row.name)].filter((part) => part !== null).join(" ") || "without an id";
    ctx.printer.note(`(${row.kind} ${which} could not be read, so its status, cost and owner are unknown: ${row.unreadable!.join("; ")})`);
  }
  if (ctx.format !== "table") {
    const of = (kind: InventoryRow["kind"]) => rows.filter((r) => r.kind === kind);
    ctx.printer.data({ pods: of("pod"), sandboxes: of("sandbox"), volumes: of("volume"), endpoints: of("endpoint"), total });
    return;
  }
  ctx.printer.list(rows, COLUMNS, { empty: "No pods, sandboxes, volumes or endpoints found." });
  if (rows.length > 0) ctx.printer.line(totalLine(total));
}
