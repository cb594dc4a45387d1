/**
 * `compute hub list|search|get`: the Hub browsing commands of the v2 document, read over the
 * REST backend of the contract decisions (GET /v2/hub/repos, /v2/hub/repos/{id|owner/name}).
 *
 * `--type` is not a query parameter of the service: it is applied to the page after it
 * arrives, so fewer than `--limit` rows may come back (v2 document, "Hub browsing commands").
 */
import { Command, Option } from "commander";
import type { HubListQuery, HubRepo, HubRepoType } from "../../sdk";
import { HUB_ORDER_BY, MAX_HUB_LIST_LIMIT } from "../../contract";
import type { Context } from "../context";
import { shortTime, type Column } from "../output";
import { integer, nonEmpty } from "../parsers";
import { withSpinner } from "../spinner";
import { action, examples } from "./shared";

interface ListFlags {
  type?: HubRepoType;
  category?: string;
  owner?: string;
  orderBy: (typeof HUB_ORDER_BY)[number];
  orderDir: "asc" | "desc";
  limit: number;
  offset?: number;
}

/** The flags of `list` and `search`, identical as the v2 document requires. */
function addListFlags(command: Command): Command {
  return command
    .addOption(new Option("--type <type>", "only repositories of this type (applied after the page arrives, so fewer than --limit may come back)").choices(["POD", "SERVERLESS"]))
    .addOption(new Option("--category <category>", "only repositories in this category").argParser(nonEmpty))
    .addOption(new Option("--owner <owner>", "only repositories of this owner").argParser(nonEmpty))
    .addOption(new Option("--order-by <field>", "sort field").choices([...HUB_ORDER_BY]).default("stars"))
    .addOption(new Option("--order-dir <dir>", "sort direction").choices(["asc", "desc"]).default("desc"))
    .addOption(new Option("--limit <n>", `maximum results (1-${MAX_HUB_LIST_LIMIT})`).argParser(integer(1, MAX_HUB_LIST_LIMIT)).default(10))
    .addOption(new Option("--offset <n>", "results to skip (pagination)").argParser(integer(0)));
}

const COLUMNS: Array<Column<HubRepo>> = [
  { header: "ID", value: (r) => r.id },
  { header: "REPOSITORY", value: (r) => `${r.owner}/${r.name}` },
  { header: "TYPE", value: (r) => r.type },
  { header: "CATEGORY", value: (r) => r.category },
  { header: "STARS", value: (r) => r.stars, align: "right" },
  { header: "DEPLOYS", value: (r) => r.deploys, align: "right" },
  { header: "RELEASE", value: (r) => r.release?.tag ?? "none" },
  { header: "TITLE", value: (r) => r.title },
];

async function listPage(ctx: Context, flags: ListFlags, text?: string): Promise<void> {
  const query: HubListQuery = {
    category: flags.category,
    owner: flags.owner,
    orderBy: flags.orderBy,
    orderDir: flags.orderDir,
    limit: flags.limit,
    offset: flags.offset,
  };
  const client = ctx.sdk();
  const page = await withSpinner(text === undefined ? "Listing Hub repositories" : `Searching the Hub for "${text}"`, () =>
    text === undefined ? client.hub.list(query) : client.hub.search(text, query),
  );
  const repos = flags.type ? page.filter((r) => r.type === flags.type) : page;
  ctx.printer.list(repos, COLUMNS, { empty: "No repositories found." });
  if (flags.type && repos.length < page.length) {
    const next = (flags.offset ?? 0) + flags.limit;
    ctx.printer.note(
      `(${repos.length} of the ${page.length} repositories on this page are ${flags.type}` +
        (page.length === flags.limit ? `; more may follow with --offset ${next})` : ")"),
    );
  }
}

export function hubCommand(): Command {
  const hub = new Command("hub").description("Browse the Hub: repositories that can be deployed as pods or serverless endpoints");
  examples(hub, ["compute hub list", "compute hub search whisper --type SERVERLESS", "compute hub get runpod-workers/worker-vllm"]);

  const list = hub.command("list").description("List repositories (default: the top 10 by stars)");
  addListFlags(list).action(action((ctx, flags: ListFlags) => listPage(ctx, flags)));
  examples(list, [
    "compute hub list",
    "compute hub list --type SERVERLESS --category LLM --limit 20",
    "compute hub list --order-by deploys --order-dir asc --offset 10",
    "compute hub list --json | jq -r '.[].id'",
  ]);

  const search = hub
    .command("search")
    .description("Search repositories by name (case-insensitive substring)")
    .argument("<query>", "text to find in repository names", nonEmpty);
  addListFlags(search).action(action((ctx, text: string, flags: ListFlags) => listPage(ctx, flags, text)));
  examples(search, ["compute hub search llm", "compute hub search worker --owner runpod-workers --type SERVERLESS"]);

  const get = hub
    .command("get")
    .description("Show one repository and its release configuration")
    .argument("<ref>", "listing id (hub_...) or owner/name", nonEmpty)
    .action(
      action(async (ctx, ref: string) => {
        const repo = await withSpinner(`Reading ${ref}`, () => ctx.sdk().hub.get(ref));
        ctx.printer.record(repoFields(repo), repo);
      }),
    );
  examples(get, ["compute hub get hub_662work", "compute hub get runpod-workers/worker-vllm --output yaml"]);

  return hub;
}

function repoFields(repo: HubRepo): Array<[string, string | number | undefined]> {
  const release = repo.release;
  const fields: Array<[string, string | number | undefined]> = [
    ["ID", repo.id],
    ["Repository", `${repo.owner}/${repo.name}`],
    ["Title", repo.title],
    ["Description", repo.description],
    ["Type", repo.type],
    ["Category", repo.category],
    ["Tags", repo.tags.join(", ")],
    ["Stars", repo.stars],
    ["Views", repo.views],
    ["Deploys", repo.deploys],
    ["Created", shortTime(repo.createdAt)],
    ["Updated", shortTime(repo.updatedAt)],
    ["Released", shortTime(repo.releasedAt)],
  ];
  if (!release) {
    fields.push(["Release", "none (not published: cannot be deployed yet)"]);
    return fields;
  }
  const env = Object.entries(release.config.env).map(([k, v]) => `${k}=${v}`);
  fields.push(
    ["Release", `${release.tag} (${release.id})`],
    ["Image", release.image],
    ["GPU types", release.config.gpuIds.join(", ")],
    ["GPU count", release.config.gpuCount],
    ["Container disk", `${release.config.containerDiskInGb} GB`],
    ["CUDA versions", release.config.allowedCudaVersions.join(", ") || "any"],
    ["Env", env.join(", ")],
  );
  return fields;
}
