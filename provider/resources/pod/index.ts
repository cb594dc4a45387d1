/**
 * `compute:index:Pod`: a GPU or CPU pod. What the generic handlers (provider/runtime/handlers.ts)
 * cannot decide for a pod is here: placement over ordered candidates, converging on the desired
 * running/stopped state, locks (a locked pod refuses stop and restart), the restart a
 * global-networking change needs, and the diff whose effects depend on other values (model.ts).
 */
import {
  ComputeError,
  ConflictError,
  POD_ACTIVE_STATUSES,
  POD_ENDED_STATUSES,
  POD_OWNER_ENV,
  createPodViolations,
  createPodWithPlacement,
  reservedEnvViolations,
  withSpec,
  type CreatePodRequest,
  type Pod,
} from "../../../sdk";
import { estimatePodCost, pricesNeeded, type PodCostRequest } from "../../../contract/estimate";
import type { CheckFailure } from "../check-failures";
import type { HookContext, InputList, Props, Recorded, ResourceDefinition, Wait } from "../definition";
import { containsUnknown, isUnknown } from "../unknowns";
import { candidateFailures, placementChanged, placementFacts, placementPreview, waitViolations, withCapacityPlan } from "../placement";
import { toCheckFailures } from "../check-failures";
import type { PriceList } from "../../../contract/estimate";
import { podTarget } from "../readiness";
import { CHANGES, EXAMPLE } from "./example";
import { markInEnv } from "../wire";
import { POD_INPUTS, POD_LIFETIME } from "./inputs";
import { recoveryRefusal } from "../recovery";
import { declarationChanged, heldExpired } from "../lifetime";
import { parseMillis } from "../../../contract/time";
import { diffPod, podUpdates, factsFromPod, importedInputs, refreshedInputs, toCreateRequest, updateRequest, type PodFacts, type PodInputs } from "./model";
import { POD_OUTPUTS } from "./outputs";

/** A pod that is not running waits for this; ERROR and TERMINATED fail the wait. */
const FAILED: ReadonlySet<string> = new Set(["ERROR", ...POD_ENDED_STATUSES]);
const running: Wait = { target: "RUNNING", failed: FAILED };
const stopped: Wait = { target: "EXITED", failed: FAILED };

const wantsRunning = (inputs: PodInputs) => (inputs.desiredState ?? "RUNNING") === "RUNNING";

/** The create body as `create` will send it, owner mark included (it counts toward the size limit). */
function asSent(inputs: PodInputs) {
  const request = toCreateRequest(inputs);
  const envKnown = request.env === undefined || (typeof request.env === "object" && !containsUnknown(request.env));
  if (typeof inputs.ownerMark === "string" && !isUnknown(inputs.ownerMark) && envKnown) {
    request.env = { ...request.env, [POD_OWNER_ENV]: withSpec(inputs.ownerMark, {}) };
  }
  return request;
}

/** An idle rule watches GPU utilisation: a CPU pod has none. A locked pod refuses stop: a STOP could never happen. */
function lifetimeFailures(inputs: PodInputs): CheckFailure[] {
  const failures: CheckFailure[] = [];
  if (inputs.idle !== undefined && inputs.cpu !== undefined && !isUnknown(inputs.cpu)) failures.push({ property: "idle", reason: "watches GPU utilisation: a CPU pod has none (use lifetime)" });
  // A CPU pod has one price whatever its candidates: a ceiling would only ever fail or never matter.
  if (inputs.maxCostPerHour !== undefined && inputs.cpu !== undefined && !isUnknown(inputs.cpu)) failures.push({ property: "maxCostPerHour", reason: "applies to a GPU pod's candidates: a CPU pod has one price (its estimate)" });
  if (inputs.locked === true) {
    for (const field of ["lifetime", "idle"] as const) {
      if (inputs[field]?.action === "STOP") failures.push({ property: `${field}.action`, reason: "a locked pod refuses stop: unlock it (locked: false) or use TERMINATE" });
    }
  }
  return failures;
}

/** Each candidate names a GPU type or a data center; a CPU pod's never a GPU type. */
function placementFailures(inputs: PodInputs): CheckFailure[] {
  const cpuPod = inputs.cpu !== undefined && !isUnknown(inputs.cpu);
  return candidateFailures(inputs.placement, (candidate, path) => (cpuPod && candidate.gpuTypeId !== undefined ? { property: `${path}.gpuTypeId`, reason: "is not allowed on a CPU pod" } : undefined));
}

/** The price-deciding part of a pod's inputs (contract/estimate.ts). */
function costRequest(inputs: Props): PodCostRequest {
  return {
    gpu: (inputs.gpu ?? undefined) as PodCostRequest["gpu"],
    cpu: (inputs.cpu ?? undefined) as PodCostRequest["cpu"],
    cloud: (inputs.cloud ?? undefined) as PodCostRequest["cloud"],
    placement: (inputs.placement ?? undefined) as PodCostRequest["placement"],
    stopped: inputs.desiredState === "STOPPED",
    ...(typeof inputs.maxCostPerHour === "number" ? { maxCostPerHour: inputs.maxCostPerHour } : {}),
  };
}

/** Each candidate's price, uncapped, in the order given (what the preview ranks and the cap is checked against). */
function candidatePrices(inputs: PodInputs, prices: PriceList) {
  const outcome = estimatePodCost({ ...costRequest(inputs), stopped: false, maxCostPerHour: undefined }, prices);
  return outcome.ok ? outcome.estimate.candidates : undefined;
}

type Context = HookContext<Pod>;

/** Converges a pod that exists onto the desired running/stopped state. */
async function converge(context: Context, inputs: PodInputs, pod: Pod): Promise<Pod> {
  const api = context.api.pods;
  if (wantsRunning(inputs)) {
    if (pod.status === "RUNNING") return pod;
    if (pod.status === "EXITED" || pod.status === "ERROR") await api.start(pod.id);
    return context.awaitState(pod.id, running, pod);
  }
  if (pod.status === "EXITED") return pod;
  if (POD_ACTIVE_STATUSES.has(pod.status)) await api.stop(pod.id);
  return context.awaitState(pod.id, stopped, pod);
}

/**
 * Inputs that never reach the service: a change of only these asks it nothing on a settled pod.
 * Not `desiredState`: the provider's own too, but converging to it is what its change asks for.
 */
const providerOnly = (key: string, list: InputList = POD_INPUTS) => key === "namePrefix" || (list[key]?.sent === "provider" && key !== "desiredState");

async function update(context: Context, id: string, previous: Recorded<PodInputs, PodFacts>, inputs: PodInputs) {
  const changes = podUpdates(previous, inputs);
  const onlyProviderSettings = [...changes].every((key) => providerOnly(key));
  const wasRunning = previous.status === "RUNNING";
  // A new provider build or a provider-only setting on a settled pod: nothing to ask the
  // service. (A pod recorded mid-failure is not settled: it goes on to converge below.)
  // (A changed lifetime may bring back what a reaper stopped since the state was recorded: it converges.)
  if (onlyProviderSettings && wasRunning === wantsRunning(inputs) && !declarationChanged(previous, inputs)) return undefined;
  const { api } = context;
  let pod = await api.pods.get(id);
  // Found in ERROR under `recovery: FAIL`: the user decides; nothing is touched (RESTART converges below; REPLACE replaced it).
  if (recoveryRefusal("pod", id, pod.status, inputs.recovery)) {
    // (The runtime refuses first when the state recorded it; this is the pod found so by this update.)
    throw new ComputeError(recoveryRefusal("pod", id, pod.status, inputs.recovery)!);
  }
  const patch = updateRequest(previous, inputs, changes, pod);
  // A lock is applied after the state converges (a locked pod refuses stop and restart);
  // an unlock goes first, with the other changes.
  const lockAfter = patch.locked === true;
  if (lockAfter) delete patch.locked;
  if (Object.keys(patch).length > 0) {
    if (pod.cluster) throw new ConflictError({ status: 409, title: "Conflict", detail: "cluster member pods are managed through their cluster", request: { method: "PATCH", path: `/v2/pods/${id}` } });
    pod = await api.pods.update(id, patch);
    context.report(`updated ${Object.keys(patch).join(", ")}`);
  }
  if (changes.has("globalNetworking") && pod.status === "RUNNING") {
    // Global networking takes effect at the next start. A locked pod refuses restarts, and
    // the lock is what the user asked for: it then takes effect when the pod next starts.
    if (pod.locked) context.report("globalNetworking changes when the pod next starts (it is locked, so it is not restarted now)");
    else pod = (await api.pods.restart(id)) ?? pod;
  }
  // Stopping a locked pod is refused; the user asked for the stop, so the lock steps aside
  // for it and comes back after.
  // Stopped at its lifetime and not extended: it stays stopped (lifetime.ts).
  if (heldExpired(previous, inputs, pod.name)) return { live: pod };
  const relock = pod.locked && !wantsRunning(inputs) && POD_ACTIVE_STATUSES.has(pod.status);
  if (relock) pod = await api.pods.update(id, { locked: false });
  pod = await converge(context, inputs, pod);
  if (lockAfter || (relock && (inputs.locked ?? false))) pod = await api.pods.update(id, { locked: true });
  return { live: pod };
}

export const podResource = {
  name: "Pod",
  kind: "pod",
  description: "A GPU or CPU pod.",
  inputs: POD_INPUTS,
  outputs: POD_OUTPUTS,
  idOutput: "podId",
  adoptInput: "adoptPodId",
  deletedAs: "deleted",
  deleteWaitsForGone: true,
  price: {
    paths: ["gpu.id", "gpu.count", "cpu.id", "cpu.vcpuCount", "cloud", "placement", "desiredState", "maxCostPerHour"],
    lists: (inputs) => pricesNeeded(costRequest(inputs)),
    estimate: (inputs, prices) => estimatePodCost(costRequest(inputs), prices),
  },

  family: (api) => ({ get: (id) => api.pods.get(id), page: () => api.pods.page(), delete: (id) => api.pods.delete(id), watcher: api.podWatcher }),
  states: { output: "status", of: (pod) => pod.status, ended: POD_ENDED_STATUSES },
  owner: markInEnv,
  lifetime: {
    ...POD_LIFETIME,
    serviceName: (pod) => pod.name,
    runStart: (pod) => (pod.startedAt ? parseMillis(pod.startedAt) : undefined),
    rename: (api, pod, name) => api.pods.update(pod.id, { name }),
  },

  violations: (inputs) => [...createPodViolations(asSent(inputs)), ...reservedEnvViolations(inputs.env)],
  checkHook: async (context, inputs, previous) => [
    ...placementFailures(inputs),
    ...lifetimeFailures(inputs),
    ...toCheckFailures(waitViolations(inputs.waitForCapacity), inputs),
    // A new pod, or one whose placement changes: where it would go, and whether any candidate is under the cap.
    ...(placementChanged(previous, inputs) && inputs.gpu !== undefined && !containsUnknown(inputs.gpu) ? await placementPreview(context, inputs, (prices) => candidatePrices(inputs, prices), () => inputs.gpu?.id) : []),
  ],
  markSpec: (request, inputs) => ({ request, placement: inputs.placement ?? [] }),
  async create(context, request, inputs) {
    const result = await withCapacityPlan(context, inputs, (prices, placement) => estimatePodCost({ ...costRequest({ ...inputs, placement }), maxCostPerHour: undefined }, prices), () => (request as CreatePodRequest).gpu?.id, (place) =>
      createPodWithPlacement(context.api, request as CreatePodRequest, inputs.placement ?? [], { place }),
    );
    if (result.attempts.length > 1) context.report(`placed on ${result.pod.gpu?.id ?? result.pod.cpu?.id} in ${result.pod.dataCenterId} after ${result.attempts.length} candidates`);
    return { live: result.pod, facts: placementFacts(result) };
  },
  ready: (inputs) => (wantsRunning(inputs) ? running : stopped),
  readiness: { accepts: ["tcp", "ssh", "http", "logLine"], refusedBecause: "only a ServerlessEndpoint has workers", targets: (pod) => [podTarget(pod)] },
  // A pod meant to be stopped has no service to probe.
  probesApply: wantsRunning,
  async settle(context, inputs, pod) {
    const settled = await converge(context, inputs, pod);
    // Locking last: a locked pod refuses stop, which converging to STOPPED may need.
    return inputs.locked ? context.api.pods.update(settled.id, { locked: true }) : settled;
  },

  facts: factsFromPod,
  imported: (pod) => importedInputs(pod),
  refreshed: refreshedInputs,
  diff: diffPod,
  async previewDiff(context, _id, olds, news) {
    // Never a silent divergence: the template it came from changes, the pod does not.
    const warning = olds.templateId === news.templateId ? context.templates.warning("pod", news.templateId) : undefined;
    if (warning) context.report(warning);
  },
  update,
  example: EXAMPLE,
  exampleChanges: CHANGES,
} satisfies ResourceDefinition<PodInputs, Pod, PodFacts>;
