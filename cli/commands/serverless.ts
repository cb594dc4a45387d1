/**
 * `compute serverless create --hub-id <id> --name <name> [--gpu-id <gpu> ...]`: a serverless
 * endpoint from a Hub repository's release (contract decisions, "Hub").
 *
 * The release names GPU *types* (`gpuIds`), the endpoint create takes GPU *pools*
 * (`gpu.pools`) with `gpu.excludedTypes`. Each listed type is mapped to its pool through the GPU
 * catalog, and every other type of those pools is excluded, so the endpoint runs only on the
 * listed types. Everything is checked before the one POST: a repository without a release, an
 * unknown id or an unusable GPU type creates nothing.
 */
import { Command, Option } from "commander";
import type { CreateEndpointRequest, Endpoint, GpuType, HubRepo } from "../../sdk";
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

/** Queue-based endpoint scaled on queue delay: the reference OpenAPI's default shape, 4 s. */
const SCALING = { type: "QUEUE_DELAY", queueDelay: 4 } as const;

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
  const release = repo.release;
  if (!release) {
    throw new CliFailure(`Hub repository ${repoName(repo)} has no release yet, so there is nothing to deploy; no endpoint was created`);
  }
  const catalog = await withSpinner("Reading GPU types", () => client.catalog.gpuTypes());
  const fromFlag = flags.gpuId !== undefined;
  const types = (fromFlag ? flags.gpuId! : release.config.gpuIds).map((id) => resolveGpu(id, catalog, fromFlag, repo));
  if (types.length === 0) {
    throw new CliFailure(`the release ${release.tag} of ${repoName(repo)} lists no GPU types; choose them with --gpu-id; no endpoint was created`);
  }
  const ids = new Set(types.map((t) => t.id));
  const pools = [...new Set(types.map((t) => t.pool!))];
  const excludedTypes = catalog.filter((t) => t.pool !== null && pools.includes(t.pool) && !ids.has(t.id)).map((t) => t.id);

  const request: CreateEndpointRequest = {
    name: flags.name,
    type: "QUEUE",
    scaling: SCALING,
    image: release.image,
    disk: release.config.containerDiskInGb,
    env: release.config.env,
    gpu: {
      pools,
      ...(excludedTypes.length ? { excludedTypes } : {}),
      count: release.config.gpuCount,
      ...(release.config.allowedCudaVersions.length ? { allowedCudaVersions: release.config.allowedCudaVersions } : {}),
    },
  };
  const endpoint = await withSpinner(`Creating serverless endpoint "${flags.name}"`, () => client.serverless.create(request));
  ctx.printer.record(endpointFields(endpoint, repo, [...ids]), endpoint);
}

function repoName(repo: HubRepo): string {
  return `${repo.owner}/${repo.name} (${repo.id})`;
}

/**
 * A GPU type id as the catalog spells it (an exact match first, then ignoring case). A bad
 * `--gpu-id` is the user's to fix (usage); a bad id in the release is the repository's.
 */
function resolveGpu(id: string, catalog: GpuType[], fromFlag: boolean, repo: HubRepo): GpuType {
  const found = catalog.find((t) => t.id === id) ?? catalog.find((t) => t.id.toLowerCase() === id.toLowerCase());
  const fail = (problem: string) =>
    fromFlag
      ? new UsageError(`--gpu-id "${id}" ${problem} (see "compute catalog gpus" for GPU type ids)`, "compute serverless create")
      : new CliFailure(`the release of ${repoName(repo)} names GPU type "${id}", which ${problem}; choose GPU types with --gpu-id; no endpoint was created`);
  if (!found) throw fail("is not a GPU type in the catalog");
  if (found.pool === null) throw fail("belongs to no GPU pool and cannot run serverless endpoints");
  return found;
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
