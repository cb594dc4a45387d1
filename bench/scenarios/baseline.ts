/**
 * Scenario 2's baseline: what existing providers do. Each of 40 pods is created and then polled
 * by itself (`GET /v2/pods/{id}`) every 5 s until RUNNING, with the SDK's plain calls (no shared
 * watcher). Run against the same stage durations as scenario 1 (2 s provisioning, 2 s starting).
 *
 * "However long provisioning takes": the same comparison with 30 s provisioning, the provider
 * through `pulumi up` (its shared watcher) and the naive poller side by side, each against its
 * own emulator, calls counted from each emulator's request log.
 */
import { EmulatorControl, startEmulator, type Timings } from "../../emulator";
import { ComputeClient } from "../../sdk";
import { fleetContext } from "../lib/fleet-context";
import { callsOf } from "./fleet";
import { FLEET_TIMINGS, countByOperation, log, raiseCpuCapacity, round, sleep, type Row, type ScenarioResult } from "../lib/common";

const PODS = 40;
const INTERVAL_MS = 5000;
const LONG_TIMINGS = { podProvisioningMs: 30000, podStartingMs: 2000, sandboxCreatingMs: 2000 };

/** Creates `pods` pods and polls each with its own GET every `intervalMs` until RUNNING. */
async function naive({ timings, pods = PODS, intervalMs = INTERVAL_MS }: { timings: Partial<Timings>; pods?: number; intervalMs?: number }) {
  const emulator = await startEmulator({ port: 0, profile: "fast", quiet: true, timings });
  const control = new EmulatorControl(emulator.url, emulator.adminToken);
  const client = new ComputeClient({ baseUrl: emulator.url, apiKey: emulator.apiKey, userAgent: "naive-baseline" });
  try {
    await raiseCpuCapacity(control);
    await control.clearRequests();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: pods }, async (_, i) => {
        const pod = await client.pods.create({ name: `naive-pod-${i}`, image: "alpine:3.20", cpu: { id: "cpu3c", vcpuCount: 2 } });
        for (;;) {
          await sleep(intervalMs);
          const seen = await client.pods.get(pod.id);
          if (seen.status === "RUNNING") return;
          if (seen.status === "ERROR" || seen.status === "TERMINATED") throw new Error(`naive baseline: ${pod.id} went to ${seen.status}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const requests = await control.requests();
    const byOperation = countByOperation(requests);
    return { seconds: round(seconds), total: requests.length, byOperation, perPod: round(requests.length / pods, 3) };
  } finally {
    await client.close();
    await emulator.close();
  }
}

export async function run(): Promise<ScenarioResult> {
  log(`naive baseline: ${PODS} pods, each polled by itself every ${INTERVAL_MS / 1000} s (2 s provisioning, 2 s starting)`);
  const short = await naive({ timings: FLEET_TIMINGS });
  log(`naive baseline: ${short.perPod} calls per pod, all RUNNING after ${short.seconds} s`);

  log("30 s provisioning: provider (pulumi up, 40 pods) and naive baseline side by side");
  const ctx = await fleetContext();
  await ctx.declare(PODS, 0);
  await ctx.resetEmulator(LONG_TIMINGS);
  const [providerUp, naiveLong] = await Promise.all([ctx.stack.up({ parallel: PODS }), naive({ timings: LONG_TIMINGS })]);
  const providerLong = callsOf(await ctx.control.requests(), PODS, 0);
  log(`30 s provisioning: provider ${providerLong.perPod.toFixed(2)} calls per pod (up ${providerUp.seconds.toFixed(1)} s), naive ${naiveLong.perPod}`);
  await ctx.stack.destroy();

  const results = {
    naive: { pods: PODS, intervalSeconds: INTERVAL_MS / 1000, stageMs: FLEET_TIMINGS, ...short },
    longProvisioning: {
      stageMs: LONG_TIMINGS,
      provider: { upSeconds: round(providerUp.seconds), total: providerLong.total, byOperation: providerLong.byOperation, perPod: round(providerLong.perPod, 3) },
      naive: naiveLong,
    },
  };
  const s2 = "2 API calls";
  const rows: Row[] = [
    {
      scenario: s2,
      figure: `naive baseline (own GET every 5 s), calls per pod; all RUNNING after ${short.seconds} s`,
      value: short.perPod.toFixed(2),
      goal: "",
      met: null,
    },
    {
      scenario: s2,
      figure: "30 s provisioning: provider calls per pod",
      value: providerLong.perPod.toFixed(2),
      reference: `naive ${naiveLong.perPod.toFixed(2)}`,
      ratio: round(providerLong.perPod / naiveLong.perPod, 3),
      goal: "≤ 3",
      met: providerLong.perPod <= 3,
    },
  ];
  return { results: { apiCallsBaseline: results }, rows };
}
