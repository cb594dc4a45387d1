/**
 * `compute ps`: every pod, cluster, sandbox, network volume and serverless endpoint of the
 * account in one table, with its rate, its GPU or compute, and the stack that owns it (the owner
 * mark, sdk/ownership.ts) or `unmanaged`, then the total of what bills. GPUs are rented by the
 * hour: this is the "what is running up the bill, and does any stack know about it" view.
 *
 * A cluster is one row that bills what its member pods bill, with the members beneath it on
 * request (`--members`). One pod list with the members in it (`includeClusterPods`) is joined to
 * the cluster list (two requests however many clusters there are): each node is counted once,
 * beneath its cluster, or as a `cluster pod` row where the key may not read clusters.
 *
 * JSON and YAML print the rows, not the API objects: a pod's `env` carries secrets (an injected
 * `JUPYTER_PASSWORD`, users' tokens) that a listing has no reason to repeat.
 *
 * An item the SDK could not read is listed all the same (status `unreadable`, owner `unknown`)
 * with a note on stderr saying why: it may be billing.
 */
import { Command, InvalidArgumentError, Option } from "commander";
import type { Context } from "../context";
import { PermissionDeniedError, joinMembers, type SetAside } from "../../sdk";
import {
  clusterRow,
  endpointRow,
  money,
  outsideClusters,
  podRow,
  sandboxRow,
  selectRows,
  totalLine,
  totalOf,
  unreadableRow,
  volumeRow,
  type InventoryRow,
  type MemberRow,
  type RowFilter,
} from "../inventory";
import { tableOf, type Column } from "../output";
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

/** Shown when a listed resource has a lifetime (docs/provider.md, "Lifetimes"): when it stops, or why it did. */
const LIFETIME_COLUMN: Column<InventoryRow> = { header: "LIFETIME", value: (r) => r.lifetime ?? undefined };

/** A cluster's members beneath its row (`--members`): what tells the nodes apart, and what each bills. */
const MEMBER_COLUMNS: Array<Column<MemberRow>> = [
  { header: "RANK", value: (m) => m.rank },
  { header: "ROLE", value: (m) => m.role },
  { header: "POD", value: (m) => m.id },
  { header: "IP", value: (m) => m.ip },
  { header: "STATUS", value: (m) => m.status },
  { header: "$/HR", value: (m) => (m.costPerHr === null ? undefined : money(m.costPerHr)), align: "right" },
];

/** Indent of the members' lines: under the KIND column, so they read as part of the row above. */
const MEMBER_INDENT = "  ";

const EMPTY = "No pods, clusters, sandboxes, volumes or endpoints found.";

/** `project/stack`: the first two parts of an owner label. */
function stackName(value: string): string {
  if (!/^[^/\s]+\/[^/\s]+$/.test(value.trim())) throw new InvalidArgumentError("Expected <project>/<stack>, e.g. ml/dev.");
  return value.trim();
}

export function psCommand(): Command {
  const ps = new Command("ps")
    .description("List the account's pods, clusters, sandboxes, network volumes and serverless endpoints that bill or may bill: status, $/hr, GPU or compute, and the owning stack (or unmanaged), with the total")
    .option("-a, --all", "also what bills no more (terminated pods, clusters and cluster members, terminated and failed sandboxes)")
    .addOption(new Option("--unmanaged", "only resources without an owner mark (not created by this provider's creates: made elsewhere, or brought in with adoptPodId/adoptSandboxId)").conflicts("stack"))
    .addOption(new Option("--stack <project/stack>", "only resources owned by this stack").argParser(stackName))
    .option("--members", "print each cluster's member pods beneath its row: rank, role, pod id, overlay IP, status, $/hr (JSON and YAML always carry them)")
    .action(action((ctx, flags: PsFlags) => list(ctx, flags)));
  examples(ps, ["compute ps", "compute ps --unmanaged", "compute ps --stack ml/dev --all", "compute ps --members", "compute ps --json | jq '.total.costPerHr'"]);
  return ps;
}

interface PsFlags extends RowFilter {
  members?: boolean;
}

type Page<T> = { items: T[]; setAside: SetAside[] };

/** `a`, `a and b`, `a, b and c`. */
const listing = (words: string[]) => (words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`);

async function list(ctx: Context, flags: PsFlags): Promise<void> {
  const client = ctx.sdk();
  const none = { items: [], setAside: [] };
  /**
   * Clusters, volumes and endpoints are listed where the key may read them: a key scoped to pods
   * and sandboxes still gets its listing, with a note of what is left out (null here).
   */
  const ifReadable = <T>(list: Promise<Page<T>>): Promise<Page<T> | null> =>
    list.catch((error: unknown) => {
      if (error instanceof PermissionDeniedError) return null;
      throw error;
    });
  const [pods, clusters, sandboxes, ended, volumes, endpoints] = await withSpinner("Listing pods, clusters, sandboxes, volumes and endpoints", () =>
    Promise.all([
      // Members included: a key that may not read clusters still sees the nodes that bill.
      client.pods.page({ includeClusterPods: true }),
      ifReadable(client.clusters.page()),
      client.sandboxes.page(),
      // The sandbox list leaves terminated ones out unless asked for them alone.
      flags.all ? client.sandboxes.page({ state: "TERMINATED" }) : Promise.resolve(none),
      ifReadable(client.networkVolumes.page()),
      ifReadable(client.serverless.page()),
    ]),
  );
  const notReadable = ([["clusters", clusters], ["network volumes", volumes], ["serverless endpoints", endpoints]] as const).filter(([, page]) => page === null).map(([what]) => what);
  // One pod list serves both: each member beneath its cluster, the rest as pods.
  const clusterPage = clusters ? joinMembers(clusters, pods) : none;
  const [volumePage, endpointPage] = [volumes ?? none, endpoints ?? none];
  // Deadlines against the service's clock (its `Date` answers), not this machine's.
  const now = client.http.serverNow();
  const rows = selectRows(
    [
      ...outsideClusters(pods.items, clusterPage.items).map((pod) => podRow(pod, now)),
      ...pods.setAside.map((item) => unreadableRow("pod", item)),
      ...clusterPage.items.map((cluster) => clusterRow(cluster, now)),
      ...clusterPage.setAside.map((item) => unreadableRow("cluster", item)),
      ...[...sandboxes.items, ...ended.items].map(sandboxRow),
      ...sandboxes.setAside.map((item) => unreadableRow("sandbox", item)),
      ...ended.setAside.map((item) => unreadableRow("sandbox", item, false)),
      ...volumePage.items.map(volumeRow),
      ...volumePage.setAside.map((item) => unreadableRow("volume", item)),
      ...endpointPage.items.map((endpoint) => endpointRow(endpoint, now)),
      ...endpointPage.setAside.map((item) => unreadableRow("endpoint", item)),
    ],
    flags,
  );
  const total = totalOf(rows);
  if (notReadable.length > 0) ctx.printer.note(`(${listing(notReadable)} not listed: this API key may not read them)`);
  for (const row of rows.filter((r) => r.unreadable)) {
    const which = [row.id, row.name === null ? null : JSON.stringify(row.name)].filter((part) => part !== null).join(" ") || "without an id";
    ctx.printer.note(`(${row.kind} ${which} could not be read, so its status, cost and owner are unknown: ${row.unreadable!.join("; ")})`);
  }
  if (ctx.format !== "table") {
    const of = (kind: InventoryRow["kind"]) => rows.filter((r) => r.kind === kind);
    ctx.printer.data({ pods: of("pod"), clusters: of("cluster"), sandboxes: of("sandbox"), volumes: of("volume"), endpoints: of("endpoint"), total });
    return;
  }
  if (rows.length === 0) {
    ctx.printer.line(EMPTY);
    return;
  }
  const columns = rows.some((row) => row.lifetime !== null) ? [...COLUMNS, LIFETIME_COLUMN] : COLUMNS;
  ctx.printer.line(flags.members ? withMembers(rows, columns) : tableOf(rows, columns));
  ctx.printer.line(totalLine(total));
}

/** Lines a row takes in the table: a cell with line breaks takes several (cli-table3). */
const height = (row: InventoryRow, columns: Array<Column<InventoryRow>>) => 1 + Math.max(...columns.map((c) => (String(c.value(row) ?? "").match(/\n/g) ?? []).length));

/**
 * The table with each cluster's members beneath its row, under a header of their own. The
 * members of every cluster are laid out as one table, so their columns line up down the page.
 */
function withMembers(rows: InventoryRow[], columns: Array<Column<InventoryRow>>): string {
  const [head, ...lines] = tableOf(rows, columns).split("\n");
  const members = rows.flatMap((row) => row.members ?? []);
  const [memberHead, ...memberLines] = tableOf(members, MEMBER_COLUMNS).split("\n");
  const out = [head!];
  for (const row of rows) {
    out.push(...lines.splice(0, height(row, columns)));
    const count = row.members?.length ?? 0;
    if (count > 0) out.push(...[memberHead!, ...memberLines.splice(0, count)].map((line) => MEMBER_INDENT + line));
  }
  return out.join("\n");
}
