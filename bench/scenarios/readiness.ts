/**
 * Scenario 11 (issue 24): what readiness probes cost, in time and in API calls. 8 pods whose sshd
 * and HTTP server come up 3 s after RUNNING are created together through the provider's runtime
 * in-process (create → RUNNING → ssh and http answer), against the emulator's real listeners;
 * beside them, the same 8 without probes, each against its own emulator. Then one pod whose
 * service never comes up, with a 6 s deadline.
 *
 * Figures: the time from RUNNING to the create's return (the service delay plus the probes'
 * lag behind it), and the API calls the probes added: the difference between the two runs, and
 * for the failure, the calls after the poll that saw RUNNING (the log tail).
 * Goals: no API call added by the network probes; a failure adds only the log tail; the lag
 * behind the service stays within one step of the network probes' backoff (capped at 2 s).
 */
import { EmulatorControl, startEmulator, type ServiceEvent } from "../../emulator";
import * as runtime from "../../provider/runtime";
import { ownerMark } from "../../sdk";
import { nativeToken } from "../../provider/resources/definition";
import { countByOperation, log, resourceOfKind, round, type Row, type ScenarioResult } from "../lib/common";

const PODS = 8;
const SERVICE_DELAY_MS = 3000;
const TIMINGS = { podProvisioningMs: 2000, podStartingMs: 1000, serviceStartMs: SERVICE_DELAY_MS };
const POD = { image: "vllm/vllm-openai:latest", gpu: { id: "NVIDIA RTX A5000" }, ports: ["22/tcp", "8000/http"], startSsh: true };
const PROBES = { ssh: true, http: { port: 8000, path: "/v1/models" } };

const total = (byOperation: Record<string, number>) => Object.values(byOperation).reduce((sum, n) => sum + n, 0);

async function emulator() {
  const started = await startEmulator({ port: 0, profile: "fast", quiet: true, timings: TIMINGS });
  const control = new EmulatorControl(started.url, started.adminToken);
  runtime.configure({ get: (key: string) => ({ "compute:baseUrl": started.url, "compute:apiKey": started.apiKey })[key] });
  return { started, control };
}

async function checked(args: Record<string, unknown>, name: string) {
  const mark = ownerMark({ organization: "o", project: "bench", stack: "ready", backend: "file:///bench", urn: `urn:pulumi:ready::bench::${nativeToken(resourceOfKind("pod"))}::${name}`, salt: "s" });
  const result = await runtime.resources.pod!.check({}, { ...args, name, namePrefix: name, ownerMark: mark, __provider: "bench" });
  if (result.failures.length > 0) throw new Error(JSON.stringify(result.failures));
  return result.inputs;
}

/** Creates the pods together; per pod, when its create returned. */
async function fleet(withProbes: boolean) {
  const { started, control } = await emulator();
  try {
    const inputs = await Promise.all(Array.from({ length: PODS }, (_, i) => checked({ ...POD, ...(withProbes ? { readiness: PROBES } : {}) }, `bench-${i}`)));
    await control.clearRequests();
    const returned = new Map<string, number>();
    await Promise.all(
      inputs.map(async (input) => {
        const created = await runtime.resources.pod!.create(input);
        returned.set(created.id, Date.now());
      }),
    );
    const events = await control.serviceEvents();
    const byOperation = countByOperation((await control.requests()).filter((r) => r.path.startsWith("/v2/")));
    return { returned, events, byOperation };
  } finally {
    await started.close();
  }
}

/** Per pod: RUNNING → create returned, and the lag behind its last service coming up. */
function timesOf(returned: Map<string, number>, events: ServiceEvent[]) {
  return [...returned].map(([id, at]) => {
    const own = events.filter((e) => e.podId === id);
    const runningAt = Date.parse(own[0]!.runningAt);
    const upAt = Math.max(...own.map((e) => Date.parse(e.time)));
    return { toUsable: (at - runningAt) / 1000, lag: (at - upAt) / 1000 };
  });
}

/** One pod whose service never comes up: the calls after the poll that saw RUNNING. */
async function failure() {
  const { started, control } = await emulator();
  try {
    const input = await checked({ ...POD, readiness: PROBES, readyTimeoutSeconds: 6 }, "bench-never");
    await control.setNextServices({ mode: "never" });
    await control.clearRequests();
    const error = await runtime.resources.pod!.create(input).then(
      () => undefined,
      (e: Error) => e,
    );
    if (!error) throw new Error("the pod whose service never comes up was reported ready");
    const requests = (await control.requests()).filter((r) => r.path.startsWith("/v2/"));
    const pod = await (await fetch(`${started.url}/v2/pods`, { headers: { authorization: `Bearer ${started.apiKey}` } })).json();
    const runningAt = Date.parse((pod as { pods: Array<{ startedAt: string }> }).pods[0]!.startedAt);
    // The poll that saw RUNNING comes within a second of it; what follows is the probes'.
    const afterRunning = requests.filter((r) => Date.parse(r.time) > runningAt + 1000);
    return { afterRunning: countByOperation(afterRunning) };
  } finally {
    await started.close();
  }
}

export async function run(): Promise<ScenarioResult> {
  log(`readiness: ${PODS} pods with ssh and http probes, services up ${SERVICE_DELAY_MS} ms after RUNNING; then without probes; then one that never answers`);
  const probed = await fleet(true);
  const plain = await fleet(false);
  const failed = await failure();
  const times = timesOf(probed.returned, probed.events);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const toUsable = round(mean(times.map((t) => t.toUsable)))!;
  const lagMean = round(mean(times.map((t) => t.lag)))!;
  const lagMax = round(Math.max(...times.map((t) => t.lag)))!;
  const added = total(probed.byOperation) - total(plain.byOperation);
  const failureCalls = total(failed.afterRunning);
  const failureOnlyLogs = Object.keys(failed.afterRunning).every((op) => op.includes("/logs"));
  log(`readiness: RUNNING → usable ${toUsable} s (lag mean ${lagMean} s, max ${lagMax} s); calls ${JSON.stringify(probed.byOperation)} vs ${JSON.stringify(plain.byOperation)}; failure ${JSON.stringify(failed.afterRunning)}`);
  const rows: Row[] = [
    {
      scenario: "11 Readiness",
      figure: `RUNNING → usable, mean of ${PODS} pods whose services answer ${SERVICE_DELAY_MS / 1000} s after RUNNING (lag behind the service: mean ${lagMean} s, max ${lagMax} s)`,
      value: `${toUsable} s`,
      reference: `service delay ${SERVICE_DELAY_MS / 1000} s`,
      ratio: null,
      goal: "lag ≤ 2 s",
      met: lagMax <= 2,
    },
    {
      scenario: "11 Readiness",
      figure: `API calls the probes added, ${PODS} pods (${total(probed.byOperation)} with probes, ${total(plain.byOperation)} without)`,
      value: String(added),
      reference: "0",
      ratio: null,
      goal: "none",
      met: added <= 0,
    },
    {
      scenario: "11 Readiness",
      figure: `API calls after RUNNING of a pod whose service never answers, 6 s deadline (${Object.entries(failed.afterRunning).map(([op, n]) => `${op} ${n}`).join(", ") || "none"})`,
      value: String(failureCalls),
      reference: "the log tail",
      ratio: null,
      goal: "only the log tail",
      met: failureOnlyLogs,
    },
  ];
  return { results: { readiness: { pods: PODS, serviceDelayMs: SERVICE_DELAY_MS, toUsable, lagMean, lagMax, withProbes: probed.byOperation, withoutProbes: plain.byOperation, added, failureAfterRunning: failed.afterRunning } }, rows };
}
