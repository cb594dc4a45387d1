/**
 * `compute:index:Pod`: a GPU or CPU pod. What the generic handlers (provider/runtime/handlers.ts)
 * cannot decide for a pod is here: placement over ordered candidates, converging on the desired
 * running/stopped state, locks (a locked pod refuses stop and restart), the restart a
 * global-networking change needs, and the diff whose effects depend on other values (model.ts).
 */
import {
  ConflictError,
  POD_ACTIVE_STATUSES,
  POD_ENDED_STATUSES,
  POD_OWNER_ENV,
  createPodViolations,
  createPodWithPlacement,
  reservedEnvViolations,
  withSpec,
  type Pod,
} from "../../../sdk";
import { estimatePodCost, pricesNeeded, type PodCostRequest } from "../../../contract/estimate";
import type { CheckFailure } from "../../runtime/check-failures";
import { report } from "../../runtime/progress";
import type { Props } from "../../runtime/props";
import { client } from "../../runtime/settings";
import { templateChangeWarning } from "../../runtime/template-changes";
import { containsUnknown, isUnknown } from "../../runtime/unknowns";
import { awaitState } from "../../runtime/wait";
import type { ResourceDefinition, Wait } from "../definition";
import { candidateFailures, placementFacts } from "../placement";
import { podTarget } from "../readiness";
import { POD_INPUTS } from "./inputs";
import { diffPod, factsFromPod, importedInputs, refreshedInputs, toCreateRequest, updateRequest, type PodFacts, type PodInputs, type PodOutputs } from "./model";
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
  };
}

/** Converges a pod that exists onto the desired running/stopped state. */
async function converge(inputs: PodInputs, pod: Pod): Promise<Pod> {
  const api = client().pods;
  if (wantsRunning(inputs)) {
    if (pod.status === "RUNNING") return pod;
    if (pod.status === "EXITED" || pod.status === "ERROR") await api.start(pod.id);
    return awaitState(podResource, inputs, pod.id, running, pod);
  }
  if (pod.status === "EXITED") return pod;
  if (POD_ACTIVE_STATUSES.has(pod.status)) await api.stop(pod.id);
  return awaitState(podResource, inputs, pod.id, stopped, pod);
}

async function update(id: string, olds: Props, inputs: PodInputs) {
  const previous = olds as unknown as PodOutputs;
  const changes = diffPod(previous, inputs);
  const onlyProviderSettings = [...changes.updates.values()].every((kind) => kind === "settings");
  const wasRunning = previous.status === "RUNNING";
  // A new provider build or a provider-only setting on a settled pod: nothing to ask the
  // service. (A pod recorded mid-failure is not settled: it goes on to converge below.)
  if (onlyProviderSettings && wasRunning === wantsRunning(inputs)) return undefined;
  const api = client();
  let pod = await api.pods.get(id);
  const patch = updateRequest(previous, inputs, changes, pod);
  // A lock is applied after the state converges (a locked pod refuses stop and restart);
  // an unlock goes first, with the other changes.
  const lockAfter = patch.locked === true;
  if (lockAfter) delete patch.locked;
  if (Object.keys(patch).length > 0) {
    if (pod.cluster) throw new ConflictError({ status: 409, title: "Conflict", detail: "cluster member pods are managed through their cluster", request: { method: "PATCH", path: `/v2/pods/${id}` } });
    pod = await api.pods.update(id, patch);
    report("pod", inputs.name, `updated ${Object.keys(patch).join(", ")}`);
  }
  if (changes.updates.has("globalNetworking") && pod.status === "RUNNING") {
    // Global networking takes effect at the next start. A locked pod refuses restarts, and
    // the lock is what the user asked for: it then takes effect when the pod next starts.
    if (pod.locked) report("pod", inputs.name, "globalNetworking changes when the pod next starts (it is locked, so it is not restarted now)");
    else pod = (await api.pods.restart(id)) ?? pod;
  }
  // Stopping a locked pod is refused; the user asked for the stop, so the lock steps aside
  // for it and comes back after.
  const relock = pod.locked && !wantsRunning(inputs) && POD_ACTIVE_STATUSES.has(pod.status);
  if (relock) pod = await api.pods.update(id, { locked: false });
  pod = await converge(inputs, pod);
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
  defaultReadyTimeoutSeconds: 900,
  deletedAs: "deleted",
  deleteWaitsForGone: true,
  price: {
    paths: ["gpu.id", "gpu.count", "cpu.id", "cpu.vcpuCount", "cloud", "placement", "desiredState"],
    lists: (inputs) => pricesNeeded(costRequest(inputs)),
    estimate: (inputs, prices) => estimatePodCost(costRequest(inputs), prices),
  },

  family: (api) => ({ get: (id) => api.pods.get(id), page: () => api.pods.page(), delete: (id) => api.pods.delete(id), watcher: api.podWatcher }),
  states: { output: "status", of: (pod) => pod.status, ended: POD_ENDED_STATUSES },
  owner: {
    read: (pod) => pod.env?.[POD_OWNER_ENV],
    write: (request, mark) => {
      request.env = { ...(request.env as Record<string, string> | undefined), [POD_OWNER_ENV]: mark };
    },
  },

  violations: (inputs) => [...createPodViolations(asSent(inputs)), ...reservedEnvViolations(inputs.env)],
  checkHook: placementFailures,
  markSpec: (request, inputs) => ({ request, placement: inputs.placement ?? [] }),
  async create(api, request, inputs) {
    const result = await createPodWithPlacement(api, request as never, inputs.placement ?? []);
    if (result.attempts.length > 1) report("pod", inputs.name, `placed on ${result.pod.gpu?.id ?? result.pod.cpu?.id} in ${result.pod.dataCenterId} after ${result.attempts.length} candidates`);
    return { live: result.pod, facts: placementFacts(result) };
  },
  ready: (inputs) => (wantsRunning(inputs) ? running : stopped),
  readiness: { accepts: ["tcp", "ssh", "http", "logLine"], refusedBecause: "only a ServerlessEndpoint has workers", targets: (pod) => [podTarget(pod)] },
  // A pod meant to be stopped has no service to probe.
  probesApply: wantsRunning,
  async settle(inputs, pod) {
    const settled = await converge(inputs, pod);
    // Locking last: a locked pod refuses stop, which converging to STOPPED may need.
    return inputs.locked ? client().pods.update(settled.id, { locked: true }) : settled;
  },

  facts: factsFromPod,
  imported: (pod) => importedInputs(pod),
  refreshed: (olds, pod) => refreshedInputs(olds as unknown as PodOutputs, pod),
  diff(olds, news) {
    const result = diffPod(olds as unknown as PodOutputs, news);
    return { replaces: result.replaces, updates: [...result.updates.keys()] };
  },
  async previewDiff(_id, olds, news) {
    // Never a silent divergence: the template it came from changes, the pod does not.
    const warning = olds.templateId === news.templateId ? templateChangeWarning("pod", news.templateId) : undefined;
    if (warning) report("pod", news.name, warning);
  },
  update: (id, olds, news) => update(id, olds, news),
} satisfies ResourceDefinition<PodInputs, Pod, PodFacts>;
