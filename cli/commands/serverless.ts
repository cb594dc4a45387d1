/**
 * `compute serverless create --hub-id <id> --name <name> [--gpu-id <gpu> ...]`: a serverless
 * endpoint from a Hub repository's release (contract decisions, "Hub").
 *
 * The mapping of a release to a create request is the SDK's (sdk/hub-deploy.ts), shared with
 * the `ServerlessEndpoint` resource. Everything is checked before the one POST: a repository
 * without a release, an unknown id or an unusable GPU type creates nothing.
 */
import { Command, Option } from "commander";
import { hubEndpointRequest, type Endpoint, type HubRepo } from "../../sdk";
import type { Context } from "../context";
import { CliFailure, UsageError } from "../errors";
import { shortTime } from "../output";
import { collect, nonEmpty } from "../parsers";
import { withSpinner } from "../spinner";
import { action, examples } from "./shared";

interface CreateFlags {
  hubId: string;
  name: string;
  gpuId?: string[];
}

export function serverlessCommand(): Command {
  const serverless = new Command("serverless").description("Serverless endpoints deployed from the Hub");
  examples(serverless, ['compute serverless create --hub-id hub_662work --name my-llm']);

  const create = serverless
    .command("create")
    .description("Create a serverless endpoint from a Hub repository's release (image, container disk, env and GPU types)")
    .addOption(new Option("--hub-id <id>", "Hub listing id (hub_...) or owner/name").argParser(nonEmpty).makeOptionMandatory())
    .addOption(new Option("--name <name>", "name of the new endpoint").argParser(nonEmpty).makeOptionMandatory())
    .addOption(
      new Option("--gpu-id <gpu>", "GPU type id to run on instead of the release's list (repeat for several; see `compute catalog gpus`)").argParser(collect),
    )
    .action(action((ctx, flags: CreateFlags) => createFromHub(ctx, flags)));
  examples(create, [
    "compute serverless create --hub-id hub_662work --name my-llm",
    'compute serverless create --hub-id runpod-workers/worker-vllm --name my-llm --gpu-id "NVIDIA H100 80GB HBM3"',
    'compute serverless create --hub-id hub_ohzwork --name embed --gpu-id "NVIDIA L4" --gpu-id "NVIDIA RTX A4000" --json',
  ]);
  return serverless;
}

async function createFromHub(ctx: Context, flags: CreateFlags): Promise<void> {
  const client = ctx.sdk();
  const repo = await withSpinner(`Reading Hub repository ${flags.hubId}`, () => client.hub.get(flags.hubId));
  const catalog = repo.release ? await withSpinner("Reading GPU types", () => client.catalog.gpuTypes()) : [];
  const plan = hubEndpointRequest(repo, catalog, { name: flags.name, gpuIds: flags.gpuId });
  if (!plan.ok) {
    // A bad --gpu-id is the user's to fix (usage); a bad release is the repository's.
    if (plan.chosen) throw new UsageError(`--gpu-id ${plan.problem} (see "compute catalog gpus" for GPU type ids)`, "compute serverless create");
    const hint = repo.release ? "; choose GPU types with --gpu-id" : "";
    throw new CliFailure(`${plan.problem}${hint}; no endpoint was created`);
  }
  const endpoint = await withSpinner(`Creating serverless endpoint "${flags.name}"`, () => client.serverless.create(plan.request));
  ctx.printer.record(endpointFields(endpoint, repo, plan.gpuIds), endpoint);
}

/** `gpu.excludedTypes` of the created endpoint (a loose member of the SDK's Endpoint shape). */
function excludedOf(endpoint: Endpoint): string[] {
  const excluded = (endpoint.gpu as { excludedTypes?: unknown } | null | undefined)?.excludedTypes;
  return Array.isArray(excluded) ? excluded.filter((t): t is string => typeof t === "string") : [];
}

function endpointFields(endpoint: Endpoint, repo: HubRepo, gpuIds: string[]): Array<[string, string | number | undefined]> {
  return [
    ["ID", endpoint.id],
    ["Name", endpoint.name],
    ["From", `${repo.owner}/${repo.name} ${repo.release?.tag ?? ""}`.trim()],
    ["Image", endpoint.image],
    ["GPU types", gpuIds.join(", ")],
    ["GPU pools", endpoint.gpu?.pools?.join(", ")],
    ["Excluded GPU types", excludedOf(endpoint).join(", ")],
    ["GPU count", endpoint.gpu?.count],
    ["Container disk", endpoint.disk === undefined ? undefined : `${endpoint.disk} GB`],
    ["Created", shortTime(endpoint.createdAt)],
  ];
}
