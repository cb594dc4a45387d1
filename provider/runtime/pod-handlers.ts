/**
 * The Pod provider's methods, run in the dynamic-provider process. The serialized provider in
 * provider/pod.ts only forwards to these (it requires this module by package name), so state
 * holds a few hundred bytes of code and no SDK, schema or secret.
 */
import {
  ComputeError,
  ConflictError,
  CreatedButUnreadableError,
  NotFoundError,
  POD_OWNER_ENV,
  createPodViolations,
  createPodWithPlacement,
  reservedEnvViolations,
  withSpec,
  type Pod,
  type PodStatus,
} from "../../sdk";
import { findLeftBehindPod, markReplacing, wasAdopted } from "./adoption";
import { toCheckFailures, type CheckFailure } from "./check-failures";
import { reportEstimate } from "./cost-estimate";
import { PartialFailure, plain, unreadableCreate } from "./partial";
import {
  DEFAULT_READY_TIMEOUT_SECONDS,
  diffPod,
  factsFromPod,
  factsOf,
  refreshedInputs,
  toCreateRequest,
  updateRequest,
  type PodDiff,
  type PodFacts,
  type PodInputs,
  type PodOutputs,
} from "./pod-model";
import { forget, report, reportTransition } from "./progress";
import { PROVIDER_KEY, resolveName, resolveOwnerMark, withoutProvider, type Props } from "./props";
import { client } from "./settings";
import { containsUnknown, isUnknown } from "./unknowns";


export async function check(olds: Props, news: Props): Promise<{ inputs: Props; failures: CheckFailure[] }> {
  const inputs = withoutProvider(news) as unknown as PodInputs & Props;
  const previous = withoutProvider(olds) as Partial<PodInputs>;
  resolveOwnerMark(inputs, previous);
  resolveName(inputs, previous, "pod");
  const failures = toCheckFailures(createPodViolations(asSent(inputs)), inputs);
  failures.push(...toCheckFailures(reservedEnvViolations(inputs.env), inputs), ...providerOnlyFailures(inputs));
  // Printed, never recorded: a price change alone must not be a diff (cost-estimate.ts).
  if (failures.length === 0) await reportEstimate("pod", inputs);
  return { inputs: { ...inputs, [PROVIDER_KEY]: news[PROVIDER_KEY] }, failures };
}

/** The create body as `create` will send it, owner mark included (it counts toward the size limit). */
function asSent(inputs: PodInputs) {
  const request = toCreateRequest(inputs);
  const envKnown = request.env === undefined || (typeof request.env === "object" && !containsUnknown(request.env));
  if (typeof inputs.ownerMark === "string" && !isUnknown(inputs.ownerMark) && envKnown) {
    request.env = { ...request.env, [POD_OWNER_ENV]: withSpec(inputs.ownerMark, {}) };
  }
  return request;
}

function providerOnlyFailures(inputs: PodInputs): CheckFailure[] {
  const out: CheckFailure[] = [];
  const state = inputs.desiredState;
  if (state !== undefined && !isUnknown(state) && state !== "RUNNING" && state !== "STOPPED") {
    out.push({ property: "desiredState", reason: 'must be "RUNNING" or "STOPPED"' });
  }
  const timeout = inputs.readyTimeoutSeconds;
  if (timeout !== undefined && !isUnknown(timeout) && !(typeof timeout === "number" && timeout > 0)) {
    out.push({ property: "readyTimeoutSeconds", reason: "must be a number > 0" });
  }
  if (Array.isArray(inputs.placement)) {
    inputs.placement.forEach((candidate, i) => {
      if (containsUnknown(candidate)) return;
      if (!candidate || (candidate.gpuTypeId === undefined && candidate.dataCenterId === undefined)) {
        out.push({ property: `placement[${i}]`, reason: "must name a gpuTypeId, a dataCenterId or both" });
      } else if (candidate.gpuTypeId !== undefined && inputs.cpu !== undefined && !isUnknown(inputs.cpu)) {
        out.push({ property: `placement[${i}].gpuTypeId`, reason: "is not allowed on a CPU pod" });
      }
    });
  }
  return out;
}

export async function diff(_id: string, olds: Props, news: Props): Promise<{ changes: boolean; replaces: string[]; deleteBeforeReplace: boolean }> {
  const result = diffPod(olds as unknown as PodOutputs, withoutProvider(news) as unknown as PodInputs);
  // The replacement's create must never take this pod (see adoption.ts).
  if (result.replaces.length > 0) markReplacing(_id);
  // A new provider build must reach the state even when nothing else changed.
  const providerChanged = olds[PROVIDER_KEY] !== news[PROVIDER_KEY];
  return { changes: result.replaces.length > 0 || result.updates.size > 0 || providerChanged, replaces: result.replaces, deleteBeforeReplace: false };
}

function outputsOf(inputs: PodInputs, pod: Pod, previous?: Partial<PodFacts>): Props {
  const outputs: PodOutputs = { ...inputs, ...factsFromPod(pod, previous) };
  return plain(outputs) as unknown as Props;
}

const ACTIVE: PodStatus[] = ["PROVISIONING", "STARTING", "RUNNING"];

/** Waits for the desired state with one deadline; ERROR or TERMINATED fail fast. */
async function awaitState(inputs: PodInputs, podId: string, target: "RUNNING" | "EXITED"): Promise<Pod> {
  const timeoutMs = (inputs.readyTimeoutSeconds ?? DEFAULT_READY_TIMEOUT_SECONDS) * 1000;
  const signal = AbortSignal.timeout(timeoutMs);
  let last: Pod | undefined;
  try {
    const pod = await client().podWatcher.waitFor(podId, (p) => p.status === target || p.status === "ERROR" || p.status === "TERMINATED", {
      signal,
      onUpdate: (p) => {
        last = p;
        reportTransition("pod", inputs.name, podId, p.status);
      },
    });
    if (pod.status !== target) throw new WaitFailed(`pod ${inputs.name} (${podId}) went to ${pod.status} while waiting for ${target}`, pod);
    return pod;
  } catch (error) {
    if (error instanceof WaitFailed) throw error;
    if (signal.aborted) {
      throw new WaitFailed(`pod ${inputs.name} (${podId}) was not ${target} within ${timeoutMs / 1000} s (last status ${last?.status ?? "unknown"}); raise readyTimeoutSeconds if it needs longer`, last);
    }
    throw error;
  }
}

class WaitFailed extends Error {
  constructor(
    message: string,
    readonly pod: Pod | undefined,
  ) {
    super(message);
  }
}

/** Converges a pod that exists onto the desired running/stopped state. */
async function converge(inputs: PodInputs, pod: Pod): Promise<Pod> {
  const api = client().pods;
  const wantRunning = (inputs.desiredState ?? "RUNNING") === "RUNNING";
  if (wantRunning) {
    if (pod.status === "RUNNING") return pod;
    if (pod.status === "EXITED" || pod.status === "ERROR") await api.start(pod.id);
    return awaitState(inputs, pod.id, "RUNNING");
  }
  if (pod.status === "EXITED") return pod;
  if (ACTIVE.includes(pod.status)) await api.stop(pod.id);
  return awaitState(inputs, pod.id, "EXITED");
}

function partial(inputs: PodInputs, providerText: unknown, pod: Pod, facts: Partial<PodFacts> | undefined, error: Error): PartialFailure {
  const properties = { ...outputsOf(inputs, pod, facts), [PROVIDER_KEY]: providerText };
  return new PartialFailure(error.message, pod.id, properties, [error.message]);
}

export async function create(props: Props): Promise<{ id: string; outs: Props }> {
  const inputs = withoutProvider(props) as unknown as PodInputs;
  const api = client();
  let pod: Pod;
  let facts: Partial<PodFacts> = {};
  let settleStrays: (() => Promise<void>) | undefined;
  if (inputs.adoptPodId) {
    pod = await api.pods.get(inputs.adoptPodId);
    if (pod.status === "TERMINATED") throw new ComputeError(`adoptPodId ${inputs.adoptPodId}: the pod is terminated and cannot be adopted`);
    report("pod", inputs.name, `adopted existing pod ${pod.id}`);
  } else {
    // The mark records who owns the pod and from which settings, so that this create, run
    // again after an interrupted `up`, takes what the first attempt made (see adoption.ts).
    const request = toCreateRequest(inputs);
    const mark = inputs.ownerMark ? withSpec(inputs.ownerMark, { request, placement: inputs.placement ?? [] }) : undefined;
    const found = mark ? await findLeftBehindPod(api, inputs.name, mark) : undefined;
    settleStrays = found?.settle;
    if (found?.adopted) pod = found.adopted;
    else {
      if (mark) request.env = { ...request.env, [POD_OWNER_ENV]: mark };
      const result = await createPodWithPlacement(api, request, inputs.placement ?? []).catch((error: unknown) => {
        if (error instanceof CreatedButUnreadableError) throw unreadableCreate(inputs, "podId", error.resourceId, props[PROVIDER_KEY], error);
        throw error;
      });
      pod = result.pod;
      facts = {
        placementChosen: result.chosen,
        placementAttempts: result.attempts.map((a) => ({ ...a.candidate, outcome: a.outcome, status: a.status })),
      };
      if (result.attempts.length > 1) report("pod", inputs.name, `placed on ${pod.gpu?.id ?? pod.cpu?.id} in ${pod.dataCenterId} after ${result.attempts.length} candidates`);
    }
  }
  reportTransition("pod", inputs.name, pod.id, pod.status);
  try {
    pod = await converge(inputs, pod);
    // Locking last: a locked pod refuses stop, which converging to STOPPED may need.
    if (inputs.locked) pod = await api.pods.update(pod.id, { locked: true });
  } catch (error) {
    // The pod exists and bills: record it (never leak it); the next `up` resumes it.
    const last = error instanceof WaitFailed && error.pod ? error.pod : pod;
    throw partial(inputs, props[PROVIDER_KEY], last, facts, error as Error);
  }
  // Only now that this pod is ready: a failed create must never have cost a working pod.
  await settleStrays?.();
  return { id: pod.id, outs: outputsOf(inputs, pod, facts) };
}

/**
 * The inputs of a pod read by id alone (`pulumi import`, the `import` resource option): what a
 * program declares to get this pod, in the shortest form, so that a program written from them
 * (or with the defaults left out) previews no change. Values that are the service's defaults or
 * that it injected are left out: `gpu.count` 1, `SECURE` cloud, no ports, the injected
 * `PUBLIC_KEY` / `JUPYTER_PASSWORD` (their presence says `startSsh` / `startJupyter`) and the
 * owner mark. Filters the pod does not record (`dataCenterIds`, CUDA constraints, a template's
 * link) cannot be known and are left out.
 */
function importedInputs(pod: Pod): PodInputs {
  const env: Record<string, string> = { ...pod.env };
  const startSsh = env.PUBLIC_KEY !== undefined;
  const startJupyter = env.JUPYTER_PASSWORD !== undefined;
  delete env.PUBLIC_KEY;
  delete env.JUPYTER_PASSWORD;
  delete env[POD_OWNER_ENV];
  const mounts: Record<string, unknown> = {};
  if (pod.mounts.persistent) mounts.persistent = { size: pod.mounts.persistent.size, path: pod.mounts.persistent.path };
  if (pod.mounts.network?.length) mounts.network = pod.mounts.network.map((m) => ({ volumeId: m.volumeId, path: m.path }));
  if (pod.mounts.global?.length) mounts.global = pod.mounts.global.map((m) => ({ volumeId: m.volumeId, path: m.path }));
  const inputs: Record<string, unknown> = { name: pod.name, image: pod.image, disk: pod.disk };
  if (pod.args !== "") inputs.args = pod.args;
  if (Object.keys(env).length > 0) inputs.env = env;
  if (pod.ports.length > 0) inputs.ports = pod.ports;
  if (pod.registry) inputs.registry = pod.registry;
  if (pod.gpu) inputs.gpu = pod.gpu.count === 1 ? { id: pod.gpu.id } : { id: pod.gpu.id, count: pod.gpu.count };
  if (pod.cpu) inputs.cpu = { id: pod.cpu.id, vcpuCount: pod.cpu.vcpuCount };
  if (pod.cloud === "COMMUNITY") inputs.cloud = pod.cloud;
  if (pod.globalNetworking.enabled) inputs.globalNetworking = true;
  if (Object.keys(mounts).length > 0) inputs.mounts = mounts;
  if (startSsh) inputs.startSsh = true;
  if (startJupyter) inputs.startJupyter = true;
  if (pod.locked) inputs.locked = true;
  if (!ACTIVE.includes(pod.status)) inputs.desiredState = "STOPPED";
  return plain(inputs) as unknown as PodInputs;
}

export async function read(id: string, props: Props): Promise<{ id: string; props?: Props; inputs?: Props }> {
  const olds = props as unknown as PodOutputs;
  let pod: Pod;
  try {
    pod = await client().pods.get(id);
  } catch (error) {
    if (error instanceof NotFoundError) return { id: "" };
    throw error;
  }
  if (pod.status === "TERMINATED") return { id: "" };
  // Refresh knows the recorded outputs; an import (native plugin) knows only the id.
  const inputs = olds.podId === undefined ? importedInputs(pod) : refreshedInputs(olds, pod);
  return { id, props: outputsOf(inputs, pod, olds), inputs: plain({ ...inputs }) as unknown as Props };
}

export async function update(id: string, olds: Props, news: Props): Promise<{ outs: Props }> {
  const previous = olds as unknown as PodOutputs;
  const inputs = withoutProvider(news) as unknown as PodInputs;
  const changes: PodDiff = diffPod(previous, inputs);
  const onlyProviderSettings = [...changes.updates.values()].every((kind) => kind === "settings");
  const wasRunning = previous.status === "RUNNING";
  const wantsRunning = (inputs.desiredState ?? "RUNNING") === "RUNNING";
  if (onlyProviderSettings && wasRunning === wantsRunning) {
    // A new provider build or a provider-only setting on a settled pod: nothing to ask the
    // service. (A pod recorded mid-failure is not settled: it goes on to converge below.)
    // The new inputs replace the old ones whole (a removed setting must not linger).
    return { outs: plain({ ...factsOf(previous), ...inputs }) as unknown as Props };
  }
  const api = client();
  let pod = await api.pods.get(id);
  try {
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
    const stopNeeded = !wantsRunning && ACTIVE.includes(pod.status);
    const relock = pod.locked && stopNeeded;
    if (relock) pod = await api.pods.update(id, { locked: false });
    pod = await converge(inputs, pod);
    if (lockAfter || (relock && (inputs.locked ?? false))) pod = await api.pods.update(id, { locked: true });
  } catch (error) {
    if (error instanceof WaitFailed) throw partial(inputs, news[PROVIDER_KEY], error.pod ?? pod, previous, error);
    throw error;
  }
  return { outs: outputsOf(inputs, pod, previous) };
}

export async function remove(id: string, props: Props): Promise<void> {
  const api = client().pods;
  const name = (props.name as string | undefined) ?? id;
  if (wasAdopted(id)) {
    // A targeted replace (`--replace`, taint) runs no diff, so its create could not tell this
    // pod from one an interrupted run left, and adopted it: it is the stack's pod now.
    report("pod", name, `kept pod ${id}: its replacement adopted it (to force a new pod, change an input that replaces it)`);
    return;
  }
  try {
    await api.delete(id);
  } catch (error) {
    if (error instanceof NotFoundError) return; // already gone: deleting is idempotent
    throw error;
  }
  // Wait until the service reports the pod gone, so `destroy` ends with nothing billing.
  try {
    await client().podWatcher.waitFor(id, () => false, { missingTolerance: 0, signal: AbortSignal.timeout(10 * 60_000) });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  reportTransition("pod", name, id, "deleted");
  forget("pod", id);
}

