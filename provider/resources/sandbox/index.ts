/**
 * `compute:index:Sandbox`: a short-lived container with an idle timeout and a maximum lifetime.
 * Only the idle timeout changes in place (PATCH), the lifetime only grows in place (extend);
 * everything else replaces. A sandbox that expired or failed leaves the state on refresh, so
 * `pulumi up --refresh` recreates it; one that ends instead of starting is deleted, not kept.
 */
import {
  MIN_IDLE_TIMEOUT_SECONDS,
  DEFAULT_IDLE_TIMEOUT_SECONDS,
  DEFAULT_MAX_LIFETIME_SECONDS,
  SANDBOX_ENDED_STATES,
  SANDBOX_OWNER_LABEL,
  createSandboxRequestViolations,
  type CreateSandboxRequest,
  reservedLabelViolations,
  type Sandbox,
} from "../../../sdk";
import { estimateSandboxCost, type SandboxCostRequest } from "../../../contract/estimate";
import { isUnknown } from "../unknowns";
import {
  createRequestOf,
  defaultDiff,
  inputsOf,
  same,
  type CheckedInputs,
  type DiffResult,
  type FactValues,
  type HookContext,
  type Props,
  type Recorded,
  type ResourceDefinition,
  type Wait,
} from "../definition";
import { CHANGES, EXAMPLE } from "./example";
import { markInLabels } from "../wire";
import { SANDBOX_INPUTS } from "./inputs";
import { SANDBOX_OUTPUTS } from "./outputs";

/** Inputs after `check`. */
export type SandboxInputs = CheckedInputs<typeof SANDBOX_INPUTS>;

/** Live facts recorded next to the desired inputs in the outputs: one per entry of `SANDBOX_OUTPUTS`. */
export type SandboxFacts = FactValues<typeof SANDBOX_OUTPUTS>;

type RecordedSandbox = Recorded<SandboxInputs, SandboxFacts>;
type Context = HookContext<Sandbox>;

const running: Wait = { target: "RUNNING", failed: SANDBOX_ENDED_STATES };

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


/** The lifetime's own rule, beyond the input list's table: it only grows in place (extend); a shorter one needs a new sandbox. */
export function diffSandbox(olds: RecordedSandbox, news: SandboxInputs, table: DiffResult): DiffResult {
  const replaces = [...table.replaces];
  const updates = [...table.updates];
  const before = olds.maxLifetimeSeconds ?? olds.appliedMaxLifetimeSeconds ?? 0;
  const after = news.maxLifetimeSeconds;
  if (!same(olds.maxLifetimeSeconds, after)) {
    if (after === undefined || isUnknown(after) || after < before) replaces.push("maxLifetimeSeconds");
    else updates.push("maxLifetimeSeconds");
  }
  return { replaces, updates };
}

function reportClamp(context: Context, inputs: SandboxInputs, sandbox: Sandbox): void {
  if (inputs.idleTimeoutSeconds !== undefined && sandbox.idleTimeoutSeconds !== inputs.idleTimeoutSeconds) {
    context.report(`idleTimeoutSeconds ${inputs.idleTimeoutSeconds} was clamped by the service to ${sandbox.idleTimeoutSeconds}`);
  }
}

/**
 * A sandbox that has ended while the stack holds it: recorded as ended (a partial failure, so
 * the state says so at once rather than at the next refresh), and the next `up` replaces it.
 */
function ended(context: Context, sandbox: Sandbox, what: string): Error {
  return context.failed(sandbox, `${what}. It is recorded as ended; the next \`pulumi up\` creates a new one.`);
}

/** Seconds since the sandbox's last activity, on the service's clock. */
function idleSecondsOf(context: Context, sandbox: Sandbox): number {
  return Math.max(0, Math.round((context.api.http.serverNow() - Date.parse(sandbox.lastActivityAt)) / 1000));
}

/**
 * At preview, a lower idle timeout than the sandbox has already been idle would end it the
 * moment it is applied (the service's rule): say so before it happens. A read-only call.
 */
async function warnIfTimeoutEndsIt(context: Context, id: string, olds: RecordedSandbox, news: SandboxInputs): Promise<void> {
  const wanted = news.idleTimeoutSeconds;
  if (typeof wanted !== "number" || (SANDBOX_ENDED_STATES as ReadonlySet<string>).has(String(olds.state))) return;
  const live = await context.api.sandboxes.get(id).catch(() => undefined);
  if (!live || live.state !== "RUNNING") return;
  const idleSeconds = idleSecondsOf(context, live);
  // The service raises values under its floor; compare with what it would apply.
  if (Math.max(wanted, MIN_IDLE_TIMEOUT_SECONDS) <= idleSeconds) {
    context.report(`warning: idleTimeoutSeconds ${wanted} is shorter than the ${idleSeconds} s this sandbox has been idle: the service will end it as soon as the change is applied`);
  }
}

async function update(context: Context, id: string, olds: RecordedSandbox, inputs: SandboxInputs) {
  const changes = diffSandbox(olds, inputs, defaultDiff(SANDBOX_INPUTS, olds, inputs));
  const api = context.api.sandboxes;
  let sandbox = await api.get(id);
  // Recorded mid-create (a partial failure): resume the wait.
  if (sandbox.state === "CREATING") sandbox = await context.awaitState(id, running, sandbox);
  if (SANDBOX_ENDED_STATES.has(sandbox.state)) {
    throw ended(context, sandbox, `sandbox ${inputs.name} (${id}) is ${sandbox.state}${sandbox.terminationReason ? ` (${sandbox.terminationReason})` : ""}`);
  }
  if (changes.updates.includes("idleTimeoutSeconds") && inputs.idleTimeoutSeconds !== undefined) {
    const idleSeconds = idleSecondsOf(context, sandbox);
    sandbox = await api.setIdleTimeout(id, inputs.idleTimeoutSeconds);
    reportClamp(context, inputs, sandbox);
    // The service ends a sandbox whose idle time already exceeds the new timeout, at once.
    if (SANDBOX_ENDED_STATES.has(sandbox.state) || Date.parse(sandbox.idleExpiresAt) <= context.api.http.serverNow()) {
      throw ended(
        context,
        { ...sandbox, state: "TERMINATED" },
        `sandbox ${inputs.name} (${id}) was ended by the service as soon as idleTimeoutSeconds became ${sandbox.idleTimeoutSeconds}: it had been idle for ${idleSeconds} s, longer than that`,
      );
    }
  }
  if (changes.updates.includes("maxLifetimeSeconds") && inputs.maxLifetimeSeconds !== undefined && inputs.maxLifetimeSeconds > sandbox.maxLifetimeSeconds) {
    sandbox = await api.extend(id, inputs.maxLifetimeSeconds);
  }
  return { live: sandbox };
}

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
  return inputs as SandboxInputs;
}

export const sandboxResource = {
  name: "Sandbox",
  kind: "sandbox",
  description: "A short-lived container with an idle timeout and a maximum lifetime.",
  inputs: SANDBOX_INPUTS,
  outputs: SANDBOX_OUTPUTS,
  idOutput: "sandboxId",
  adoptInput: "adoptSandboxId",
  deletedAs: "terminated",
  discardIfEndedAtCreate: true,
  price: {
    paths: ["compute.vcpuCount", "compute.memoryInGb", "compute.containerDiskInGb"],
    lists: () => ({ gpuTypes: false, cpuFlavors: false }),
    estimate: (inputs) => estimateSandboxCost({ compute: inputs.compute as SandboxCostRequest["compute"] }),
  },

  // The list holds only live ones: CREATING, RUNNING and FAILED.
  family: (api) => ({ get: (id) => api.sandboxes.get(id), page: () => api.sandboxes.page(), delete: (id) => api.sandboxes.delete(id), watcher: api.sandboxWatcher }),
  states: { output: "state", of: (sandbox) => sandbox.state, reason: (sandbox) => sandbox.terminationReason, ended: SANDBOX_ENDED_STATES, clutter: new Set(["FAILED"]) },
  owner: markInLabels,

  violations: (inputs) => [...createSandboxRequestViolations(createRequestOf(SANDBOX_INPUTS, inputs)), ...reservedLabelViolations(inputs.labels)],
  markSpec: (request) => request,
  create: async (context, request) => ({ live: await context.api.sandboxes.create(request as CreateSandboxRequest) }),
  ready: () => running,
  readiness: {
    accepts: ["logLine"],
    refusedBecause: "a sandbox publishes no port mappings the provider can read",
    targets: (sandbox) => [{ label: sandbox.id, logs: { stream: (api, options) => api.sandboxes.logs(sandbox.id, options), since: sandbox.startedAt } }],
  },
  afterCreate: reportClamp,

  facts: (sandbox) => factsFromSandbox(sandbox),
  imported: (sandbox) => importedInputs(sandbox),
  refreshed(olds, sandbox) {
    const inputs = inputsOf(SANDBOX_INPUTS, olds);
    // An idle timeout changed behind the stack's back shows as drift; a clamp does not.
    if (sandbox.idleTimeoutSeconds !== olds.appliedIdleTimeoutSeconds) inputs.idleTimeoutSeconds = sandbox.idleTimeoutSeconds;
    if (sandbox.maxLifetimeSeconds !== olds.appliedMaxLifetimeSeconds) inputs.maxLifetimeSeconds = sandbox.maxLifetimeSeconds;
    return inputs;
  },
  diff: diffSandbox,
  async previewDiff(context, id, olds, news, diff) {
    if (diff.updates.includes("idleTimeoutSeconds")) await warnIfTimeoutEndsIt(context, id, olds, news);
    const warning = olds.templateId === news.templateId ? context.templates.warning("sandbox", news.templateId) : undefined;
    if (warning) context.report(warning);
  },
  update,
  example: EXAMPLE,
  exampleChanges: CHANGES,
} satisfies ResourceDefinition<SandboxInputs, Sandbox, SandboxFacts>;
