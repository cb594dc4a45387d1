/**
 * The reaper: what `compute reap` runs, with nothing but an API key. It reads the pods, clusters
 * and serverless endpoints of the account, keeps those that carry both an owner mark (a stack
 * made them) and a lifetime tag (their stack declared a lifetime or an idle rule;
 * contract/lifetime.ts), and applies `lifetimeVerdict` to each: a resource without a tag, an
 * unmanaged one, or one of a stack outside `stacks` is never touched.
 *
 * Acting is safe from several places at once and repeatedly:
 * - A reaper first writes a claim into the tag (a rename, harmless), waits `claimWaitMs`, reads
 *   the resource again and acts only if its claim is still the one there and the verdict still
 *   stands: of two reapers at once, the later claim wins and the other steps aside. A claim
 *   older than CLAIM_STALE_MS (a reaper killed mid-act) is taken over.
 * - It records the expiry in the tag (`expired=<time>/<reason>`) before the action, so what
 *   refresh shows never depends on the action's answer; an action refused because the resource
 *   already ended (another reaper's) counts as done.
 * - A resource that no longer bills is never acted on again.
 */
import {
  humanSpan,
  lifetimeVerdict,
  splitLifetimeTag,
  tagTime,
  withLifetimeTag,
  type LifetimeAction,
  type LifetimeObservation,
  type LifetimeTag,
  type LifetimeVerdict,
  type Pod,
} from "../contract";
import { parseMillis } from "../contract/time";
import type { ComputeClient } from "./client";
import { ConflictError, NotFoundError } from "./errors";
import { ownerOf, splitMarkedName, type ParsedOwnerMark } from "./ownership";
import type { ClusterWithMembers } from "./resources/clusters";

/** A claim older than this was left by a reaper that did not finish: another takes it over. */
export const CLAIM_STALE_MS = 10 * 60_000;

export type ReapKind = "pod" | "cluster" | "serverless endpoint";

/** One resource as the reaper sees it. */
export interface ReapTarget {
  kind: ReapKind;
  id: string;
  /** The program's name (owner mark and tag taken off). */
  name: string;
  serviceName: string;
  owner: ParsedOwnerMark;
  tag: LifetimeTag;
  seen: LifetimeObservation;
  /** Workers allowed, for an endpoint (what "billing" means there). */
  workersMax?: number;
}

/** How each kind is read, renamed and acted on, and the actions it can take (the definitions accept only these). */
interface KindOps {
  actions: readonly LifetimeAction[];
  list(api: ComputeClient): Promise<ReapTarget[]>;
  get(api: ComputeClient, id: string): Promise<ReapTarget | undefined>;
  rename(api: ComputeClient, id: string, name: string): Promise<unknown>;
  act(api: ComputeClient, id: string, action: LifetimeAction): Promise<unknown>;
}

const sum = (values: number[]) => Math.round(values.reduce((a, b) => a + b, 0) * 1e6) / 1e6;

function targetOf(kind: ReapKind, id: string, serviceName: string, carrier: Parameters<typeof ownerOf>[0], seen: LifetimeObservation, workersMax?: number): ReapTarget | undefined {
  const { tag } = splitLifetimeTag(serviceName);
  const owner = ownerOf(carrier);
  if (!tag || !owner) return undefined;
  return { kind, id, name: splitMarkedName(serviceName).name, serviceName, owner, tag, seen, ...(workersMax !== undefined ? { workersMax } : {}) };
}

const POD_BILLING = new Set(["PROVISIONING", "STARTING", "RUNNING", "ERROR"]);

function podTarget(pod: Pod): ReapTarget | undefined {
  const runStart = pod.startedAt ? parseMillis(pod.startedAt) : undefined;
  const utils = pod.status === "RUNNING" ? pod.runtime?.gpus?.map((gpu) => gpu.util) : undefined;
  // One GPU whose utilisation is not reported makes the whole reading unknown: never idle on a guess.
  const gpuUtil = utils && utils.every((util) => typeof util === "number") ? (utils as number[]) : null;
  return targetOf("pod", pod.id, pod.name, pod, { billing: POD_BILLING.has(pod.status), costPerHour: pod.cost, gpuUtil, ...(runStart !== undefined ? { runStart } : {}) });
}

function clusterTarget(cluster: ClusterWithMembers): ReapTarget | undefined {
  const billing = cluster.members.filter((pod) => POD_BILLING.has(pod.status));
  return targetOf("cluster", cluster.id, cluster.name, cluster, { billing: billing.length > 0, costPerHour: sum(billing.map((pod) => pod.cost)), gpuUtil: null });
}

type EndpointLike = Awaited<ReturnType<ComputeClient["serverless"]["get"]>>;

function endpointTarget(endpoint: EndpointLike): ReapTarget | undefined {
  // Workers not reported: it may bill, so a due rule still acts (scaling to zero is harmless).
  const max = endpoint.workers?.max ?? 1;
  // What an endpoint costs is its workers', which the endpoint does not price: unknown here.
  return targetOf("serverless endpoint", endpoint.id, endpoint.name, endpoint, { billing: max > 0, costPerHour: Number.NaN, gpuUtil: null }, max);
}

const orUndefined = <T>(read: Promise<T>) => read.catch((error: unknown) => (error instanceof NotFoundError ? undefined : Promise.reject(error)));


const KINDS: Record<ReapKind, KindOps> = {
  pod: {
    actions: ["STOP", "TERMINATE"],
    list: async (api) => (await api.pods.list()).map(podTarget).filter((t) => t !== undefined),
    get: async (api, id) => {
      const pod = await orUndefined(api.pods.get(id));
      return pod ? podTarget(pod) : undefined;
    },
    rename: (api, id, name) => api.pods.update(id, { name }),
    act: (api, id, action) => (action === "STOP" ? api.pods.stop(id) : api.pods.delete(id)),
  },
  cluster: {
    actions: ["TERMINATE"],
    list: async (api) => (await api.clusters.pageWithMembers()).items.map(clusterTarget).filter((t) => t !== undefined),
    get: async (api, id) => {
      const cluster = await orUndefined(api.clusters.withMembers(id));
      return cluster ? clusterTarget(cluster) : undefined;
    },
    rename: (api, id, name) => api.clusters.rename(id, name),
    act: (api, id) => api.clusters.delete(id),
  },
  "serverless endpoint": {
    actions: ["STOP"],
    list: async (api) => (await api.serverless.list()).map(endpointTarget).filter((t) => t !== undefined),
    get: async (api, id) => {
      const endpoint = await orUndefined(api.serverless.get(id));
      return endpoint ? endpointTarget(endpoint) : undefined;
    },
    rename: (api, id, name) => api.serverless.update(id, { name }),
    // STOP: no workers, the endpoint and its URL kept (its declared scaling comes back with a new lifetime).
    act: (api, id) => api.serverless.update(id, { workers: { min: 0, max: 0 } }),
  },
};

export interface ReapOptions {
  /** Act (true), or only say what would be done (false: the default of `compute reap`). */
  apply: boolean;
  /** `project/stack` names whose resources are in scope; undefined: every stack of the account. */
  stacks?: readonly string[];
  /** This reaper's id in claims (lower-case letters and digits). */
  reaperId: string;
  /** How long a claim settles before the reaper reads it back. */
  claimWaitMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** What happened to one resource: a line's worth. */
export interface ReapOutcome {
  kind: ReapKind;
  id: string;
  name: string;
  stack: string;
  verdict: LifetimeVerdict;
  /** `stopped`, `terminated`, `scaled to zero`, `would stop`, `marked idle`, `left to another reaper`, … */
  result: string;
  /** The reaper could not do what was due (the service refused, a request failed): the resource may still bill. */
  failed?: true;
  /** USD since the deadline or since it went idle, at its rate now (null: not known). */
  costMeanwhile: number | null;
  costPerHour: number | null;
}

/** The kinds a reaper reads, and the ones whose list the key could not read (the reaper says so and goes on). */
export interface ReapReport {
  outcomes: ReapOutcome[];
  unreadable: Array<{ kind: ReapKind; message: string }>;
}

const DONE: Record<LifetimeAction, Record<ReapKind, string>> = {
  STOP: { pod: "stopped", cluster: "stopped", "serverless endpoint": "scaled to zero workers" },
  TERMINATE: { pod: "terminated", cluster: "terminated", "serverless endpoint": "deleted" },
};

const stackOf = (target: ReapTarget) => target.owner.label.split("/").slice(0, 2).join("/");

/** Every tagged, owned resource in scope, each with what the rule says of it now, and what was done. */
export async function reap(api: ComputeClient, options: ReapOptions): Promise<ReapReport> {
  // The service's clock (its `Date` answers, learnt from the lists below): a runner's skew never moves a deadline.
  const now = options.now ?? (() => api.http.serverNow());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const report: ReapReport = { outcomes: [], unreadable: [] };
  const lists = await Promise.all(
    (Object.keys(KINDS) as ReapKind[]).map((kind) =>
      KINDS[kind].list(api).catch((error: unknown) => {
        report.unreadable.push({ kind, message: error instanceof Error ? error.message : String(error) });
        return [] as ReapTarget[];
      }),
    ),
  );
  const targets = lists.flat().filter((target) => options.stacks === undefined || options.stacks.includes(stackOf(target)));
  for (const target of targets) report.outcomes.push(await reapOne(api, target, options, now, sleep));
  return report;
}

async function reapOne(api: ComputeClient, listed: ReapTarget, options: ReapOptions, now: () => number, sleep: (ms: number) => Promise<void>): Promise<ReapOutcome> {
  const ops = KINDS[listed.kind];
  const verdict = possible(ops, lifetimeVerdict(listed.tag, listed.seen, now()));
  const outcome = (result: string, failed = false): ReapOutcome => ({
    kind: listed.kind,
    id: listed.id,
    name: listed.name,
    stack: stackOf(listed),
    verdict,
    result,
    ...(failed ? { failed: true as const } : {}),
    costPerHour: Number.isFinite(listed.seen.costPerHour) ? listed.seen.costPerHour : null,
    costMeanwhile: verdict.do === "act" && Number.isFinite(listed.seen.costPerHour) ? Math.round(((listed.seen.costPerHour * Math.max(0, now() - verdict.since)) / 3_600_000) * 100) / 100 : null,
  });
  if (verdict.do === "nothing") return outcome(verdict.why);
  if (!options.apply) return outcome(verdict.do === "act" ? `would be ${DONE[verdict.action][listed.kind]} (dry run)` : verdict.do === "markIdle" ? "idle now: a reaper that applies records since when" : "busy again");
  try {
    return await applyVerdict(api, ops, listed, options, now, sleep, outcome);
  } catch (error) {
    // One resource's failure is its own line; the others are still reaped.
    if (error instanceof NotFoundError) return outcome("gone meanwhile");
    return outcome(`failed: ${error instanceof Error ? error.message : String(error)}`, true);
  }
}

/** A verdict the kind cannot carry out (an action it does not take, from a hand-edited tag) is none. */
function possible(ops: KindOps, verdict: LifetimeVerdict): LifetimeVerdict {
  return verdict.do === "act" && !ops.actions.includes(verdict.action) ? { do: "nothing", why: `${verdict.action} is not an action this kind takes` } : verdict;
}

/**
 * Acts on one due resource. Every rename is built from a read made just before it, never from
 * the list (a `pulumi up` may have extended the lifetime meanwhile, or another reaper acted).
 */
async function applyVerdict(
  api: ComputeClient,
  ops: KindOps,
  listed: ReapTarget,
  options: ReapOptions,
  now: () => number,
  sleep: (ms: number) => Promise<void>,
  outcome: (result: string, failed?: boolean) => ReapOutcome,
): Promise<ReapOutcome> {
  const fresh = await ops.get(api, listed.id);
  if (!fresh) return outcome("gone meanwhile");
  const verdict = possible(ops, lifetimeVerdict(fresh.tag, fresh.seen, now()));
  if (verdict.do === "nothing") return outcome(`no longer due (${verdict.why})`);
  if (verdict.do === "markIdle" || verdict.do === "clearIdle") {
    const tag: LifetimeTag = { ...fresh.tag, idleSince: verdict.do === "markIdle" ? tagTime(now()) : undefined };
    await ops.rename(api, fresh.id, withLifetimeTag(fresh.serviceName, tag));
    return outcome(verdict.do === "markIdle" ? `idle: recorded idle since ${tag.idleSince}` : "busy again: idle record cleared");
  }
  const claim = fresh.tag.claim;
  if (claim && claim.by !== options.reaperId && now() - (parseMillis(claim.at) ?? 0) < CLAIM_STALE_MS) return outcome(`left to reaper ${claim.by}, acting on it since ${claim.at}`);
  await ops.rename(api, fresh.id, withLifetimeTag(fresh.serviceName, { ...fresh.tag, claim: { by: options.reaperId, at: tagTime(now()) } }));
  await sleep(options.claimWaitMs ?? 1500);
  const claimed = await ops.get(api, fresh.id);
  if (!claimed) return outcome("gone meanwhile");
  if (claimed.tag.claim?.by !== options.reaperId) return outcome(`left to reaper ${claimed.tag.claim?.by ?? "(none: its lifetime was changed meanwhile)"}`);
  const still = possible(ops, lifetimeVerdict(claimed.tag, claimed.seen, now()));
  if (still.do !== "act") return outcome(`no longer due (${still.do === "nothing" ? still.why : still.do})`);
  // The expiry first, so what refresh shows never rests on the action's answer.
  const unclaimed: LifetimeTag = { ...claimed.tag, claim: undefined, idleSince: undefined };
  await ops.rename(api, claimed.id, withLifetimeTag(claimed.serviceName, { ...unclaimed, expired: { at: tagTime(now()), reason: still.reason } }));
  try {
    await ops.act(api, claimed.id, still.action);
  } catch (error) {
    if (error instanceof NotFoundError) return outcome(DONE[still.action][listed.kind]);
    if (!(error instanceof ConflictError)) throw error;
    // Refused: done already (another reaper's stop), or not possible (a locked pod). Only what no longer bills counts as done.
    const after = await ops.get(api, claimed.id);
    if (!after || !after.seen.billing) return outcome(DONE[still.action][listed.kind]);
    await ops.rename(api, after.id, withLifetimeTag(after.serviceName, { ...after.tag, expired: undefined, claim: undefined }));
    return outcome(`refused by the service (${error.message}): it still bills`, true);
  }
  return outcome(DONE[still.action][listed.kind]);
}

/** One line per outcome: what, why, since when, what it cost meanwhile, and what was done. */
export function describeOutcome(outcome: ReapOutcome, now: number): string {
  const head = `${outcome.kind} ${outcome.name} (${outcome.id}, ${outcome.stack})`;
  const { verdict } = outcome;
  if (verdict.do !== "act") return `${head}: ${outcome.result}`;
  const why = verdict.reason === "lifetime" ? "lifetime reached" : "idle for its window";
  const cost = outcome.costMeanwhile === null ? "cost meanwhile not known here (see `compute cost`)" : `≈ $${outcome.costMeanwhile.toFixed(2)} meanwhile at $${outcome.costPerHour!.toFixed(2)}/hr`;
  return `${head}: ${verdict.action}, ${why} at ${tagTime(verdict.since)} (${humanSpan(now - verdict.since)} ago), ${cost}: ${outcome.result}`;
}

/** Why a reaper's options are refused, before any call. */
export function reapOptionViolations(options: Pick<ReapOptions, "reaperId">): string[] {
  return /^[0-9a-z]{1,32}$/.test(options.reaperId) ? [] : ["reaper id: 1 to 32 lower-case letters and digits"];
}
