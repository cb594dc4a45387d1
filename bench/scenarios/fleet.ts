/**
 * Scenarios 1 (fleet up), 2 (API calls, the provider's side) and 4 (state size): one stack of
 * 40 CPU pods and 40 sandboxes against the in-process emulator.
 *
 * - Floor: `pulumi up` of the same stack with zero stage durations, plus the 4 s that
 *   provisioning (2 s) and starting (2 s) must take whatever the tool does.
 * - Fleet: `pulumi up` with 2 s provisioning, 2 s starting, 2 s sandbox creating.
 * Both are timed from the Automation API call to its answer; destroy runs between them, untimed.
 * The pair runs `repeats` times, interleaved, at `--parallel 80` (one engine slot per resource);
 * then once at the engine's default parallelism (4 × GOMAXPROCS), which users get unless they
 * pass `--parallel` or set PULUMI_PARALLEL.
 */
import * as os from "node:os";
import type { LoggedRequest, Timings } from "../../emulator";
import { fleetContext } from "../lib/fleet-context";
import { FLEET_RESOURCES, FLEET_TIMINGS, UNAVOIDABLE_SECONDS, ZERO_TIMINGS, countByOperation, log, median, round, sumOps, type Row, type ScenarioResult } from "../lib/common";
import { dynamicToken } from "../../provider/resources/definition";

/** API calls per pod from create to RUNNING, at `--parallel 80` and at the engine's default parallelism alike. */
const CALLS_PER_POD_GOAL = 1.3;
import type { Deployment } from "../lib/stack";

const PODS = 40;
const SANDBOXES = 40;
// The fleet scenarios run the dynamic classes (bench:native unset).
const POD_TYPE = dynamicToken(FLEET_RESOURCES.pod);
const SANDBOX_TYPE = dynamicToken(FLEET_RESOURCES.sandbox);

/** Calls per pod and per sandbox from one up's request log. */
export interface Calls {
  total: number;
  byOperation: Record<string, number>;
  podCalls: number;
  sandboxCalls: number;
  otherCalls: number;
  perPod: number;
  perSandbox: number;
  perResource: number;
  status429: number;
}

export function callsOf(requests: LoggedRequest[], pods: number, sandboxes: number): Calls {
  const byOperation = countByOperation(requests);
  const podCalls = sumOps(byOperation, (op) => / \/v2\/pods(\/|$)/.test(op));
  const sandboxCalls = sumOps(byOperation, (op) => / \/v2\/sandboxes(\/|$)/.test(op));
  const total = requests.length;
  return {
    total,
    byOperation,
    podCalls,
    sandboxCalls,
    otherCalls: total - podCalls - sandboxCalls,
    perPod: pods ? podCalls / pods : 0,
    perSandbox: sandboxes ? sandboxCalls / sandboxes : 0,
    perResource: total / (pods + sandboxes),
    status429: requests.filter((r) => r.status === 429).length,
  };
}

function stateSize(deployment: Deployment, stateFileBytes: number | undefined) {
  const resources = deployment.resources ?? [];
  const managed = resources.filter((r) => r.type === POD_TYPE || r.type === SANDBOX_TYPE);
  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");
  const avg = (list: unknown[]) => (list.length ? list.reduce((s: number, r) => s + bytes(r), 0) / list.length : 0);
  let providerBytes = 0;
  let providerText: string | undefined;
  for (const r of managed) {
    for (const side of [r.inputs, r.outputs]) {
      const text = side?.__provider;
      if (typeof text === "string") {
        providerBytes += Buffer.byteLength(text, "utf8");
        providerText ??= text;
      }
    }
  }
  return {
    resources: managed.length,
    deploymentBytes: bytes(deployment),
    deploymentBytesPerResource: bytes(deployment) / managed.length,
    podEntryBytes: avg(managed.filter((r) => r.type === POD_TYPE)),
    sandboxEntryBytes: avg(managed.filter((r) => r.type === SANDBOX_TYPE)),
    providerBytesPerResource: providerBytes / managed.length,
    providerTextBytes: providerText ? Buffer.byteLength(providerText, "utf8") : 0,
    stateFileBytes,
    stateFileBytesPerResource: stateFileBytes === undefined ? undefined : stateFileBytes / managed.length,
  };
}

export async function run({ repeats }: { repeats: number }): Promise<ScenarioResult> {
  const ctx = await fleetContext();
  const { control, stack } = ctx;
  const parallel = PODS + SANDBOXES;
  const defaultParallel = os.availableParallelism() * 4;

  const timedUp = async (label: string, timings: Partial<Timings>, upParallel: number | undefined) => {
    await ctx.resetEmulator(timings);
    const up = await stack.up({ parallel: upParallel });
    const requests = await control.requests();
    log(`${label}: pulumi up ${up.seconds.toFixed(2)} s, ${requests.length} API calls`);
    return { seconds: up.seconds, requests };
  };

  await ctx.declare(PODS, SANDBOXES);
  const floors: number[] = [];
  const fleets: Array<{ seconds: number; calls: Calls }> = [];
  let stateRecord: ReturnType<typeof stateSize> | undefined;
  for (let i = 0; i < repeats; i++) {
    const floor = await timedUp(`floor #${i + 1} (zero stage durations, --parallel ${parallel})`, ZERO_TIMINGS, parallel);
    floors.push(floor.seconds);
    await stack.destroy();
    const fleet = await timedUp(`fleet #${i + 1} (2 s/2 s/2 s stages, --parallel ${parallel})`, FLEET_TIMINGS, parallel);
    fleets.push({ seconds: fleet.seconds, calls: callsOf(fleet.requests, PODS, SANDBOXES) });
    if (i === 0) stateRecord = stateSize(await stack.exportDeployment(), stack.stateFileBytes());
    await stack.destroy();
  }
  const floorDefault = await timedUp(`floor (engine default parallelism ${defaultParallel})`, ZERO_TIMINGS, undefined);
  await stack.destroy();
  const fleetDefault = await timedUp(`fleet (engine default parallelism ${defaultParallel})`, FLEET_TIMINGS, undefined);
  const callsDefault = callsOf(fleetDefault.requests, PODS, SANDBOXES);
  await stack.destroy();

  const floorSeconds = median(floors) + UNAVOIDABLE_SECONDS;
  const fleetSeconds = median(fleets.map((f) => f.seconds));
  const ratio = fleetSeconds / floorSeconds;
  const floorDefaultSeconds = floorDefault.seconds + UNAVOIDABLE_SECONDS;
  const ratioDefault = fleetDefault.seconds / floorDefaultSeconds;
  // The run with the most pod calls speaks for scenario 2 (worst case of the repeats).
  const worst = fleets.reduce((a, b) => (b.calls.perPod > a.calls.perPod ? b : a));

  const fleetUp = {
    pods: PODS,
    sandboxes: SANDBOXES,
    stageMs: FLEET_TIMINGS,
    parallel,
    engineDefaultParallel: defaultParallel,
    repeats,
    floorUpSeconds: floors.map((s) => round(s)),
    fleetUpSeconds: fleets.map((f) => round(f.seconds)),
    floorSeconds: round(floorSeconds),
    fleetSeconds: round(fleetSeconds),
    ratio: round(ratio, 3),
    atDefaultParallelism: {
      floorUpSeconds: round(floorDefault.seconds),
      floorSeconds: round(floorDefaultSeconds),
      fleetSeconds: round(fleetDefault.seconds),
      ratio: round(ratioDefault, 3),
    },
  };
  const roundCalls = (c: Calls) => ({
    ...c,
    perPod: round(c.perPod, 3),
    perSandbox: round(c.perSandbox, 3),
    perResource: round(c.perResource, 3),
  });
  const apiCalls = {
    provider: roundCalls(worst.calls),
    providerPerRun: fleets.map((f) => round(f.calls.perPod, 3)),
    providerAtDefaultParallelism: roundCalls(callsDefault),
  };
  if (!stateRecord) throw new Error("no repeat ran (--repeats must be at least 1)");
  const state = {
    ...stateRecord,
    deploymentBytesPerResource: round(stateRecord.deploymentBytesPerResource, 0),
    podEntryBytes: round(stateRecord.podEntryBytes, 0),
    sandboxEntryBytes: round(stateRecord.sandboxEntryBytes, 0),
    providerBytesPerResource: round(stateRecord.providerBytesPerResource, 0),
    stateFileBytesPerResource: round(stateRecord.stateFileBytesPerResource, 0),
  };

  const s1 = "1 Fleet up";
  const rows: Row[] = [
    {
      scenario: s1,
      figure: `pulumi up, ${PODS} pods + ${SANDBOXES} sandboxes, --parallel ${parallel} (median of ${repeats})`,
      value: `${fleetSeconds.toFixed(2)} s`,
      reference: `floor ${floorSeconds.toFixed(2)} s`,
      ratio: round(ratio, 3),
      goal: "ratio ≤ 1.15",
      met: ratio <= 1.15,
    },
    {
      scenario: s1,
      figure: `same, engine default parallelism (${defaultParallel} = 4 × cores)`,
      value: `${fleetDefault.seconds.toFixed(2)} s`,
      reference: `floor ${floorDefaultSeconds.toFixed(2)} s`,
      ratio: round(ratioDefault, 3),
      goal: "ratio ≤ 1.15",
      met: ratioDefault <= 1.15,
    },
  ];
  const s2 = "2 API calls";
  const c = worst.calls;
  rows.push(
    {
      scenario: s2,
      figure: `provider, calls per pod create→RUNNING (worst of ${repeats}; POST ${c.byOperation["POST /v2/pods"] ?? 0}, list ${c.byOperation["GET /v2/pods"] ?? 0}, get ${c.byOperation["GET /v2/pods/{id}"] ?? 0})`,
      value: c.perPod.toFixed(2),
      // Issue 43's goal (the fleet-scale issue's before it): flat at every parallelism.
      goal: `≤ ${CALLS_PER_POD_GOAL}`,
      met: c.perPod <= CALLS_PER_POD_GOAL,
    },
    {
      scenario: s2,
      figure: `provider, calls per sandbox (POST ${c.byOperation["POST /v2/sandboxes"] ?? 0}, list ${c.byOperation["GET /v2/sandboxes"] ?? 0}, get ${c.byOperation["GET /v2/sandboxes/{id}"] ?? 0})`,
      value: c.perSandbox.toFixed(2),
      goal: "",
      met: null,
    },
    {
      scenario: s2,
      figure: `provider at default parallelism (${defaultParallel}), calls per pod`,
      value: callsDefault.perPod.toFixed(2),
      goal: `≤ ${CALLS_PER_POD_GOAL}`,
      met: callsDefault.perPod <= CALLS_PER_POD_GOAL,
    },
  );
  const s4 = "4 State size";
  rows.push(
    {
      scenario: s4,
      figure: `state (stack export) per resource (${state.resources} resources, ${state.deploymentBytes} B)`,
      value: `${state.deploymentBytesPerResource} B`,
      goal: "< 10240 B",
      met: state.deploymentBytesPerResource < 10240,
    },
    {
      scenario: s4,
      figure: `serialized provider per resource (${state.providerTextBytes} B, stored in inputs and outputs)`,
      value: `${state.providerBytesPerResource} B`,
      goal: "< 10240 B",
      met: state.providerBytesPerResource < 10240,
    },
    {
      scenario: s4,
      figure: "file backend's stack file per resource, as stored on disk",
      value: state.stateFileBytesPerResource === undefined ? "n/a" : `${state.stateFileBytesPerResource} B`,
      goal: "",
      met: null,
    },
  );
  return { results: { fleetUp, apiCalls, stateSize: state }, rows };
}
