/**
 * The Sandbox provider's methods (see pod-handlers.ts for why they live outside the
 * serialized provider). Sandboxes are short-lived: only the idle timeout changes in place
 * (PATCH), the lifetime only grows in place (extend); everything else replaces. A sandbox that
 * expired or failed leaves the state on refresh, so `pulumi up --refresh` recreates it.
 */
import {
  ComputeError,
  CreatedButUnreadableError,
  DEFAULT_IDLE_TIMEOUT_SECONDS,
  DEFAULT_MAX_LIFETIME_SECONDS,
  MIN_IDLE_TIMEOUT_SECONDS,
  NotFoundError,
  SANDBOX_OWNER_LABEL,
  createSandboxRequestViolations,
  reservedLabelViolations,
  withSpec,
  type CreateSandboxRequest,
  type Sandbox,
} from "../../sdk";
import type { OutputValues, SANDBOX_OUTPUTS } from "../outputs";
import type { SandboxArgs } from "../sandbox";
import { findLeftBehindSandbox, markReplacing, wasAdopted } from "./adoption";
import type { CheckedInputs, EveryKeyListed } from "./checked-inputs";
import { toCheckFailures, type CheckFailure } from "./check-failures";
import { reportEstimate } from "./cost-estimate";
import { PartialFailure, plain, unreadableCreate } from "./partial";
import { forget, report, reportTransition } from "./progress";
import { PROVIDER_KEY, resolveName, resolveOwnerMark, withoutProvider, type Props } from "./props";
import { client } from "./settings";
import { isUnknown } from "./unknowns";

/** Inputs after `check`, typed from `SandboxArgs`. */
export type SandboxInputs = CheckedInputs<SandboxArgs>;

/** Live facts recorded next to the desired inputs in the outputs: one per entry of `SANDBOX_OUTPUTS`. */
export type SandboxFacts = OutputValues<typeof SANDBOX_OUTPUTS>;

const CREATE_FIELDS = [
  "name",
  "image",
  "templateId",
  "compute",
  "dataCenterIds",
  "ports",
  "env",
  "egressPolicy",
  "idleTimeoutSeconds",
  "maxLifetimeSeconds",
  "labels",
] as const;
const PROVIDER_FIELDS = ["readyTimeoutSeconds", "adoptSandboxId", "namePrefix", "nameGenerated"] as const;
/** Recorded with the inputs but never a change: the mark advances on every check by design. */
const RECORDED_FIELDS = ["ownerMark", "secretInputs"] as const;
// An input added to `SandboxArgs` and in none of these lists would be dropped from state: fail to compile.
true satisfies EveryKeyListed<SandboxInputs, (typeof CREATE_FIELDS | typeof PROVIDER_FIELDS | typeof RECORDED_FIELDS)[number]>;

export function toCreateRequest(inputs: SandboxInputs): CreateSandboxRequest {
  const request: Record<string, unknown> = {};
  for (const field of CREATE_FIELDS) if (inputs[field] !== undefined) request[field] = inputs[field];
  return request as CreateSandboxRequest;
}

function inputsOf(outputs: Props): SandboxInputs {
  const out: Props = {};
  for (const key of [...CREATE_FIELDS, ...PROVIDER_FIELDS, ...RECORDED_FIELDS]) if (outputs[key] !== undefined) out[key] = outputs[key];
  return out as unknown as SandboxInputs;
}

export function factsFromSandbox(sandbox: Sandbox): SandboxFacts {
  return {
    sandboxId: sandbox.id,
    state: sandbox.state,
    dataCenterId: sandbox.dataCenterId,
    appliedIdleTimeoutSeconds: sandbox.idleTimeoutSeconds,
    appliedMaxLifetimeSeconds: sandbox.maxLifetimeSeconds,
    costPerHour: sandbox.compute.costPerHr,
    vcpuCount: sandbox.compute.vcpuCount,
    memoryInGb: sandbox.compute.memoryInGb,
    containerDiskInGb: sandbox.compute.containerDiskInGb,
    createdAt: sandbox.createdAt,
    startedAt: sandbox.startedAt,
    lastActivityAt: sandbox.lastActivityAt,
    idleExpiresAt: sandbox.idleExpiresAt,
    expiresAt: sandbox.expiresAt,
  };
}

function outputsOf(inputs: SandboxInputs, sandbox: Sandbox): Props {
  return plain({ ...inputs, ...factsFromSandbox(sandbox) });
}

export async function check(olds: Props, news: Props): Promise<{ inputs: Props; failures: CheckFailure[] }> {
  const inputs = withoutProvider(news) as unknown as SandboxInputs & Props;
  const previous = withoutProvider(olds) as Partial<SandboxInputs>;
  resolveOwnerMark(inputs, previous);
  resolveName(inputs, previous, "sandbox");
  const failures = toCheckFailures([...createSandboxRequestViolations(toCreateRequest(inputs)), ...reservedLabelViolations(inputs.labels)], inputs);
  const timeout = inputs.readyTimeoutSeconds;
  if (timeout !== undefined && !isUnknown(timeout) && !(typeof timeout === "number" && timeout > 0)) {
    failures.push({ property: "readyTimeoutSeconds", reason: "must be a number > 0" });
  }
  // Printed, never recorded: a price change alone must not be a diff (cost-estimate.ts).
  if (failures.length === 0) await reportEstimate("sandbox", inputs);
  return { inputs: { ...inputs, [PROVIDER_KEY]: news[PROVIDER_KEY] }, failures };
}

const same = (a: unknown, b: unknown) => !isUnknown(b) && JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export function diffSandbox(olds: Props, news: SandboxInputs): { replaces: string[]; updates: string[] } {
  const old = inputsOf(olds);
  const replaces: string[] = [];
  const updates: string[] = [];
  for (const field of ["name", "image", "templateId", "compute", "dataCenterIds", "ports", "env", "egressPolicy", "labels"] as const) {
    if (!same(old[field], news[field])) replaces.push(field);
  }
  if (!same(old.idleTimeoutSeconds, news.idleTimeoutSeconds)) updates.push("idleTimeoutSeconds");
  if (!same(old.maxLifetimeSeconds, news.maxLifetimeSeconds)) {
    const before = old.maxLifetimeSeconds ?? (olds.appliedMaxLifetimeSeconds as number | undefined) ?? 0;
    const after = news.maxLifetimeSeconds;
    // Lifetime only grows in place (extend); a shorter one needs a new sandbox.
    if (after === undefined || isUnknown(after) || after < before) replaces.push("maxLifetimeSeconds");
    else updates.push("maxLifetimeSeconds");
  }
  for (const field of PROVIDER_FIELDS) if (field !== "nameGenerated" && !same(old[field], news[field])) updates.push(field);
  return { replaces, updates };
}

export async function diff(id: string, olds: Props, news: Props) {
  const result = diffSandbox(olds, withoutProvider(news) as unknown as SandboxInputs);
  // Recorded as ended (a failed start, or an idle-timeout change that ended it): it cannot be
  // brought back in place, so the next `up` replaces it.
  if (GONE.has(String(olds.state))) result.replaces.push("state");
  // The replacement's create must never take this sandbox (see adoption.ts).
  if (result.replaces.length > 0) markReplacing(id);
  if (result.updates.includes("idleTimeoutSeconds")) await warnIfTimeoutEndsIt(id, olds, withoutProvider(news) as unknown as SandboxInputs);
  const providerChanged = olds[PROVIDER_KEY] !== news[PROVIDER_KEY];
  return { changes: result.replaces.length > 0 || result.updates.length > 0 || providerChanged, replaces: result.replaces, deleteBeforeReplace: false };
}

function reportClamp(inputs: SandboxInputs, sandbox: Sandbox): void {
  if (inputs.idleTimeoutSeconds !== undefined && sandbox.idleTimeoutSeconds !== inputs.idleTimeoutSeconds) {
    report("sandbox", inputs.name, `idleTimeoutSeconds ${inputs.idleTimeoutSeconds} was clamped by the service to ${sandbox.idleTimeoutSeconds}`);
  }
}

/**
 * A sandbox that ended (FAILED or TERMINATED) instead of starting. A plain Error on purpose:
 * the SDK's errors answer `instanceof` by brand, so a subclass of them would match them all.
 */
class StartFailed extends Error {}

/**
 * Waits for RUNNING. Any failure other than the sandbox ending (the service unreachable, 5xx,
 * the deadline) is a partial failure carrying the last state seen: the sandbox exists and may
 * bill, so it is recorded and the next `up` resumes the wait (or replaces it if it ended).
 */
async function awaitRunning(inputs: SandboxInputs, sandbox: Sandbox, providerText: unknown): Promise<Sandbox> {
  const timeoutMs = (inputs.readyTimeoutSeconds ?? 600) * 1000;
  const signal = AbortSignal.timeout(timeoutMs);
  let last = sandbox;
  try {
    const ready = await client().sandboxWatcher.waitFor(sandbox.id, (s) => s.state !== "CREATING", {
      signal,
      onUpdate: (s) => {
        last = s;
        reportTransition("sandbox", inputs.name, s.id, s.state);
      },
    });
    if (ready.state !== "RUNNING") {
      throw new StartFailed(`sandbox ${inputs.name} (${sandbox.id}) ended ${ready.state}${ready.terminationReason ? ` (${ready.terminationReason})` : ""} instead of RUNNING`);
    }
    return ready;
  } catch (error) {
    if (error instanceof StartFailed) throw error;
    const reason = signal.aborted
      ? `sandbox ${inputs.name} (${sandbox.id}) was not RUNNING within ${timeoutMs / 1000} s; raise readyTimeoutSeconds if it needs longer`
      : `sandbox ${inputs.name} (${sandbox.id}): waiting for RUNNING failed (${(error as Error).message}); it is recorded, and the next \`pulumi up\` resumes the wait`;
    throw new PartialFailure(reason, sandbox.id, { ...outputsOf(inputs, last), [PROVIDER_KEY]: providerText }, [reason]);
  }
}

export async function create(props: Props): Promise<{ id: string; outs: Props }> {
  const inputs = withoutProvider(props) as unknown as SandboxInputs;
  const api = client().sandboxes;
  let sandbox: Sandbox;
  let settleStrays: (() => Promise<void>) | undefined;
  if (inputs.adoptSandboxId) {
    sandbox = await api.get(inputs.adoptSandboxId);
    if (sandbox.state === "TERMINATED" || sandbox.state === "FAILED") {
      throw new ComputeError(`adoptSandboxId ${inputs.adoptSandboxId}: the sandbox is ${sandbox.state} and cannot be adopted`);
    }
    report("sandbox", inputs.name, `adopted existing sandbox ${sandbox.id}`);
  } else {
    // The mark records who owns the sandbox and from which settings, so that this create, run
    // again after an interrupted `up`, takes what the first attempt made (see adoption.ts).
    const request = toCreateRequest(inputs);
    const mark = inputs.ownerMark ? withSpec(inputs.ownerMark, request) : undefined;
    const found = mark ? await findLeftBehindSandbox(client(), inputs.name, mark) : undefined;
    settleStrays = found?.settle;
    if (found?.adopted) sandbox = found.adopted;
    else {
      if (mark) request.labels = { ...request.labels, [SANDBOX_OWNER_LABEL]: mark };
      sandbox = await api.create(request).catch((error: unknown) => {
        if (error instanceof CreatedButUnreadableError) throw unreadableCreate(inputs, "sandboxId", error.resourceId, props[PROVIDER_KEY], error);
        throw error;
      });
    }
  }
  reportTransition("sandbox", inputs.name, sandbox.id, sandbox.state);
  reportClamp(inputs, sandbox);
  try {
    sandbox = await awaitRunning(inputs, sandbox, props[PROVIDER_KEY]);
  } catch (error) {
    // A sandbox that ended instead of starting is terminated rather than left behind (it
    // cannot start any more, and the stack never knew it).
    if (error instanceof StartFailed) await api.delete(sandbox.id).catch(() => undefined);
    throw error;
  }
  // Only now that this sandbox runs: a failed create must never have cost a working one.
  await settleStrays?.();
  return { id: sandbox.id, outs: outputsOf(inputs, sandbox) };
}

const GONE = new Set(["TERMINATED", "FAILED"]);

/**
 * The inputs of a sandbox read by id alone (`pulumi import`, the `import` resource option), in
 * the shortest form a program would declare, so that it previews no change: the service's
 * defaults (idle timeout, lifetime, `ALLOW_ALL` egress, no ports) and the owner label are left
 * out. The service does not return a sandbox's `env` or its `dataCenterIds` filter: a program
 * that sets them sees a replacement.
 */
function importedInputs(sandbox: Sandbox): SandboxInputs {
  const { vcpuCount, memoryInGb, containerDiskInGb } = sandbox.compute;
  const inputs: Props = { name: sandbox.name, compute: { vcpuCount, memoryInGb, containerDiskInGb } };
  if (sandbox.templateId) inputs.templateId = sandbox.templateId;
  else inputs.image = sandbox.image;
  if (sandbox.ports.length > 0) inputs.ports = sandbox.ports;
  const { mode, allow } = sandbox.egressPolicy;
  if (mode !== "ALLOW_ALL" || allow.length > 0) inputs.egressPolicy = allow.length > 0 ? { mode, allow } : { mode };
  if (sandbox.idleTimeoutSeconds !== DEFAULT_IDLE_TIMEOUT_SECONDS) inputs.idleTimeoutSeconds = sandbox.idleTimeoutSeconds;
  if (sandbox.maxLifetimeSeconds !== DEFAULT_MAX_LIFETIME_SECONDS) inputs.maxLifetimeSeconds = sandbox.maxLifetimeSeconds;
  const labels: Record<string, string> = { ...sandbox.labels };
  delete labels[SANDBOX_OWNER_LABEL];
  if (Object.keys(labels).length > 0) inputs.labels = labels;
  return inputs as unknown as SandboxInputs;
}

export async function read(id: string, props: Props): Promise<{ id: string; props?: Props; inputs?: Props }> {
  let sandbox: Sandbox;
  try {
    sandbox = await client().sandboxes.get(id);
  } catch (error) {
    if (error instanceof NotFoundError) return { id: "" };
    throw error;
  }
  if (GONE.has(sandbox.state)) {
    report("sandbox", String(props.name ?? id), `is ${sandbox.state}${sandbox.terminationReason ? ` (${sandbox.terminationReason})` : ""}: removed from the stack`);
    return { id: "" };
  }
  // Refresh knows the recorded outputs; an import (native plugin) knows only the id.
  if (props.sandboxId === undefined) {
    const imported = importedInputs(sandbox);
    return { id, props: outputsOf(imported, sandbox), inputs: plain(imported) as unknown as Props };
  }
  const inputs = inputsOf(props);
  // An idle timeout changed behind the stack's back shows as drift; a clamp does not.
  if (sandbox.idleTimeoutSeconds !== props.appliedIdleTimeoutSeconds) inputs.idleTimeoutSeconds = sandbox.idleTimeoutSeconds;
  if (sandbox.maxLifetimeSeconds !== props.appliedMaxLifetimeSeconds) inputs.maxLifetimeSeconds = sandbox.maxLifetimeSeconds;
  return { id, props: outputsOf(inputs, sandbox), inputs: plain(inputs) as unknown as Props };
}

export async function update(id: string, olds: Props, news: Props): Promise<{ outs: Props }> {
  const inputs = withoutProvider(news) as unknown as SandboxInputs;
  const changes = diffSandbox(olds, inputs);
  const api = client().sandboxes;
  let sandbox = await api.get(id);
  // Recorded mid-create (a partial failure): resume the wait.
  if (sandbox.state === "CREATING") sandbox = await awaitRunning(inputs, sandbox, news[PROVIDER_KEY]);
  if (GONE.has(sandbox.state)) throw ended(inputs, sandbox, news[PROVIDER_KEY], `sandbox ${inputs.name} (${id}) is ${sandbox.state}${sandbox.terminationReason ? ` (${sandbox.terminationReason})` : ""}`);
  if (changes.updates.includes("idleTimeoutSeconds") && inputs.idleTimeoutSeconds !== undefined) {
    const idleSeconds = idleSecondsOf(sandbox);
    sandbox = await api.setIdleTimeout(id, inputs.idleTimeoutSeconds);
    reportClamp(inputs, sandbox);
    // The service ends a sandbox whose idle time already exceeds the new timeout, at once.
    if (GONE.has(sandbox.state) || Date.parse(sandbox.idleExpiresAt) <= client().http.serverNow()) {
      throw ended(
        inputs,
        { ...sandbox, state: "TERMINATED" },
        news[PROVIDER_KEY],
        `sandbox ${inputs.name} (${id}) was ended by the service as soon as idleTimeoutSeconds became ${sandbox.idleTimeoutSeconds}: it had been idle for ${idleSeconds} s, longer than that`,
      );
    }
  }
  if (changes.updates.includes("maxLifetimeSeconds") && inputs.maxLifetimeSeconds !== undefined && inputs.maxLifetimeSeconds > sandbox.maxLifetimeSeconds) {
    sandbox = await api.extend(id, inputs.maxLifetimeSeconds);
  }
  return { outs: outputsOf(inputs, sandbox) };
}

/**
 * A sandbox that has ended while the stack holds it: recorded as ended (a partial failure, so
 * the state says so at once rather than at the next refresh), and the next `up` replaces it.
 */
function ended(inputs: SandboxInputs, sandbox: Sandbox, providerText: unknown, what: string): PartialFailure {
  const message = `${what}. It is recorded as ended; the next \`pulumi up\` creates a new one.`;
  return new PartialFailure(message, sandbox.id, { ...outputsOf(inputs, sandbox), [PROVIDER_KEY]: providerText }, [message]);
}

/** Seconds since the sandbox's last activity, on the service's clock. */
function idleSecondsOf(sandbox: Sandbox): number {
  return Math.max(0, Math.round((client().http.serverNow() - Date.parse(sandbox.lastActivityAt)) / 1000));
}

/**
 * At preview, a lower idle timeout than the sandbox has already been idle would end it the
 * moment it is applied (the service's rule): say so before it happens. A read-only call.
 */
async function warnIfTimeoutEndsIt(id: string, olds: Props, news: SandboxInputs): Promise<void> {
  const wanted = news.idleTimeoutSeconds;
  if (typeof wanted !== "number" || GONE.has(String(olds.state))) return;
  const live = await client().sandboxes.get(id).catch(() => undefined);
  if (!live || live.state !== "RUNNING") return;
  const idleSeconds = idleSecondsOf(live);
  // The service raises values under its floor; compare with what it would apply.
  if (Math.max(wanted, MIN_IDLE_TIMEOUT_SECONDS) <= idleSeconds) {
    report("sandbox", news.name, `warning: idleTimeoutSeconds ${wanted} is shorter than the ${idleSeconds} s this sandbox has been idle: the service will end it as soon as the change is applied`);
  }
}

export async function remove(id: string, props: Props): Promise<void> {
  if (wasAdopted(id)) {
    // See pod-handlers.ts remove: a targeted replace adopted it; it is the stack's sandbox now.
    report("sandbox", String(props.name ?? id), `kept sandbox ${id}: its replacement adopted it (to force a new one, change an input that replaces it)`);
    return;
  }
  try {
    await client().sandboxes.delete(id); // 204, also when already terminated
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  reportTransition("sandbox", String(props.name ?? id), id, "terminated");
  forget("sandbox", id);
}
