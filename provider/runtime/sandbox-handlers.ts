/**
 * The Sandbox provider's methods (see pod-handlers.ts for why they live outside the
 * serialized provider). Sandboxes are short-lived: only the idle timeout changes in place
 * (PATCH), the lifetime only grows in place (extend); everything else replaces. A sandbox that
 * expired or failed leaves the state on refresh, so `pulumi up --refresh` recreates it.
 */
import { ComputeError, NotFoundError, createSandboxRequestViolations, type CreateSandboxRequest, type Sandbox } from "../../sdk";
import { toCheckFailures, type CheckFailure } from "./check-failures";
import { plain } from "./partial";
import { forget, report, reportTransition } from "./progress";
import { PROVIDER_KEY, resolveName, withoutProvider, type Props } from "./props";
import { client } from "./settings";
import { isUnknown } from "./unknowns";

export interface SandboxInputs {
  name: string;
  image?: string;
  templateId?: string;
  compute: CreateSandboxRequest["compute"];
  dataCenterIds?: string[];
  ports?: string[];
  env?: Record<string, string>;
  egressPolicy?: CreateSandboxRequest["egressPolicy"];
  idleTimeoutSeconds?: number;
  maxLifetimeSeconds?: number;
  labels?: Record<string, string>;
  readyTimeoutSeconds?: number;
  adoptSandboxId?: string;
  namePrefix?: string;
  nameGenerated?: boolean;
}

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

export function toCreateRequest(inputs: SandboxInputs): CreateSandboxRequest {
  const request: Record<string, unknown> = {};
  for (const field of CREATE_FIELDS) if (inputs[field] !== undefined) request[field] = inputs[field];
  return request as CreateSandboxRequest;
}

function inputsOf(outputs: Props): SandboxInputs {
  const out: Props = {};
  for (const key of [...CREATE_FIELDS, ...PROVIDER_FIELDS]) if (outputs[key] !== undefined) out[key] = outputs[key];
  return out as unknown as SandboxInputs;
}

function outputsOf(inputs: SandboxInputs, sandbox: Sandbox): Props {
  return plain({
    ...inputs,
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
  });
}

export async function check(olds: Props, news: Props): Promise<{ inputs: Props; failures: CheckFailure[] }> {
  const inputs = withoutProvider(news) as unknown as SandboxInputs & Props;
  const previous = withoutProvider(olds) as Partial<SandboxInputs>;
  resolveName(inputs, previous, "sandbox");
  const failures = toCheckFailures(createSandboxRequestViolations(toCreateRequest(inputs)), inputs);
  const timeout = inputs.readyTimeoutSeconds;
  if (timeout !== undefined && !isUnknown(timeout) && !(typeof timeout === "number" && timeout > 0)) {
    failures.push({ property: "readyTimeoutSeconds", reason: "must be a number > 0" });
  }
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

export async function diff(_id: string, olds: Props, news: Props) {
  const result = diffSandbox(olds, withoutProvider(news) as unknown as SandboxInputs);
  const providerChanged = olds[PROVIDER_KEY] !== news[PROVIDER_KEY];
  return { changes: result.replaces.length > 0 || result.updates.length > 0 || providerChanged, replaces: result.replaces, deleteBeforeReplace: false };
}

function reportClamp(inputs: SandboxInputs, sandbox: Sandbox): void {
  if (inputs.idleTimeoutSeconds !== undefined && sandbox.idleTimeoutSeconds !== inputs.idleTimeoutSeconds) {
    report("sandbox", inputs.name, `idleTimeoutSeconds ${inputs.idleTimeoutSeconds} was clamped by the service to ${sandbox.idleTimeoutSeconds}`);
  }
}

async function awaitRunning(inputs: SandboxInputs, sandbox: Sandbox): Promise<Sandbox> {
  const timeoutMs = (inputs.readyTimeoutSeconds ?? 600) * 1000;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const ready = await client().sandboxWatcher.waitFor(sandbox.id, (s) => s.state !== "CREATING", {
      signal,
      onUpdate: (s) => reportTransition("sandbox", inputs.name, s.id, s.state),
    });
    if (ready.state !== "RUNNING") {
      throw new ComputeError(`sandbox ${inputs.name} (${sandbox.id}) ended ${ready.state}${ready.terminationReason ? ` (${ready.terminationReason})` : ""} instead of RUNNING`);
    }
    return ready;
  } catch (error) {
    if (signal.aborted) throw new ComputeError(`sandbox ${inputs.name} (${sandbox.id}) was not RUNNING within ${timeoutMs / 1000} s; raise readyTimeoutSeconds if it needs longer`);
    throw error;
  }
}

export async function create(props: Props): Promise<{ id: string; outs: Props }> {
  const inputs = withoutProvider(props) as unknown as SandboxInputs;
  const api = client().sandboxes;
  let sandbox: Sandbox;
  if (inputs.adoptSandboxId) {
    sandbox = await api.get(inputs.adoptSandboxId);
    if (sandbox.state === "TERMINATED" || sandbox.state === "FAILED") {
      throw new ComputeError(`adoptSandboxId ${inputs.adoptSandboxId}: the sandbox is ${sandbox.state} and cannot be adopted`);
    }
    report("sandbox", inputs.name, `adopted existing sandbox ${sandbox.id}`);
  } else {
    sandbox = await api.create(toCreateRequest(inputs));
  }
  reportTransition("sandbox", inputs.name, sandbox.id, sandbox.state);
  reportClamp(inputs, sandbox);
  try {
    sandbox = await awaitRunning(inputs, sandbox);
  } catch (error) {
    // A sandbox that did not start is terminated rather than left behind: the stack never
    // knew it, so it must not outlive this failed create.
    await api.delete(sandbox.id).catch(() => undefined);
    throw error;
  }
  return { id: sandbox.id, outs: outputsOf(inputs, sandbox) };
}

const GONE = new Set(["TERMINATED", "FAILED"]);

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
  if (changes.updates.includes("idleTimeoutSeconds") && inputs.idleTimeoutSeconds !== undefined) {
    sandbox = await api.setIdleTimeout(id, inputs.idleTimeoutSeconds);
    reportClamp(inputs, sandbox);
  }
  if (changes.updates.includes("maxLifetimeSeconds") && inputs.maxLifetimeSeconds !== undefined && inputs.maxLifetimeSeconds > sandbox.maxLifetimeSeconds) {
    sandbox = await api.extend(id, inputs.maxLifetimeSeconds);
  }
  return { outs: outputsOf(inputs, sandbox) };
}

export async function remove(id: string, props: Props): Promise<void> {
  try {
    await client().sandboxes.delete(id); // 204, also when already terminated
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  reportTransition("sandbox", String(props.name ?? id), id, "terminated");
  forget("sandbox", id);
}
