/**
 * Scenario 3: 30 pods under a minute quota of 60 (hour and day generous), 2 s provisioning and
 * 2 s starting. Counts 429 answers in the request log of the timed up, checks that every pod is
 * RUNNING, and compares the wall time with the minimum the quota allows for the calls made:
 *
 *   T_min  = T_floor + T_wait
 *   T_floor = pulumi up of the same 30 pods with zero stage durations and no tight quota, + 4 s
 *   T_wait  = 0 when N ≤ Q, else (⌈N/Q⌉ − 1) · W − φ: the calls beyond the first window's quota
 *             cannot start before ⌈N/Q⌉ − 1 window boundaries have passed
 *   N = calls made, Q = the quota, W = 60 s, φ = how far into its window the first call fell
 *   (windows are fixed and aligned to the epoch on the emulator clock; setting the quota clears
 *   the counters, so the first window offers the whole quota). Each run starts at a chosen
 *   second of a minute of the emulator clock (42: the first call falls about 45 s into its
 *   window), so φ, and with it the minimum, is the same from one run to the next.
 *
 * The same stack then runs under a quota that binds (20 calls per minute, fewer than the 30
 * creates), started at second 42 and at second 52 of a minute: the provider must wait for the
 * next window instead of drawing 429s, and how much of the window is left when the first
 * window's quota runs out changes what its rate limiter does.
 */
import type { EmulatorControl } from "../../emulator";
import { fleetContext, type FleetContext } from "../lib/fleet-context";
import { FLEET_TIMINGS, UNAVOIDABLE_SECONDS, ZERO_TIMINGS, countByOperation, log, round, type Row, type ScenarioResult } from "../lib/common";

const PODS = 30;
const WINDOW_SECONDS = 60;
const GENEROUS = { minute: 100000, hour: 2000000, day: 20000000 };

/**
 * Moves the emulator clock forward to the next hh:mm:SS, so that the up's first call (about 3 s
 * later) falls at the same place in its window in every run: the minimum depends on it.
 */
async function clockToSecond(control: EmulatorControl, second: number): Promise<void> {
  const { now } = await control.clock();
  const target = new Date(now);
  target.setUTCSeconds(second, 0);
  if (target.getTime() <= Date.parse(now)) target.setUTCMinutes(target.getUTCMinutes() + 1);
  await control.setClock({ set: target.toISOString() });
}

async function underQuota(ctx: FleetContext, quota: number, floorSeconds: number, startSecond: number) {
  const { control, stack } = ctx;
  await ctx.resetEmulator(FLEET_TIMINGS);
  await clockToSecond(control, startSecond);
  await control.updateAccount("acct_dev", { rateLimits: { minute: quota, hour: GENEROUS.hour, day: GENEROUS.day } });
  await control.clearRequests();
  const up = await stack.up({ parallel: PODS });
  const requests = await control.requests();
  // Generous again, so checking and tearing down do not wait for a window (not measured).
  await control.updateAccount("acct_dev", { rateLimits: GENEROUS });
  const listed = await fetch(`${ctx.emulator.url}/v2/pods`, { headers: { authorization: `Bearer ${ctx.emulator.apiKey}` } });
  const pods = (((await listed.json()) as { pods?: Array<{ name?: string; status: string }> }).pods ?? []).filter((p) => /^bench-pod-/.test(p.name ?? ""));
  const running = pods.filter((p) => p.status === "RUNNING").length;
  await stack.destroy();

  const calls = requests.length;
  const status429 = requests.filter((r) => r.status === 429).length;
  const firstMs = calls ? Date.parse(requests[0]!.time) : 0;
  const phaseSeconds = (firstMs % (WINDOW_SECONDS * 1000)) / 1000;
  const windows = Math.max(1, Math.ceil(calls / quota));
  const waitSeconds = windows <= 1 ? 0 : (windows - 1) * WINDOW_SECONDS - phaseSeconds;
  const minimumSeconds = floorSeconds + waitSeconds;
  const ratio = up.seconds / minimumSeconds;
  log(
    `quota ${quota}/min: up ${up.seconds.toFixed(2)} s, ${calls} calls, ${status429} × 429, ${running}/${PODS} RUNNING; ` +
      `${windows} window(s), minimum ${minimumSeconds.toFixed(2)} s`,
  );
  return {
    quotaPerMinute: quota,
    upSeconds: round(up.seconds),
    calls,
    byOperation: countByOperation(requests),
    status429,
    podsRunning: running,
    failedResources: PODS - running,
    windowsNeeded: windows,
    firstCallPhaseSeconds: round(phaseSeconds, 1),
    waitSeconds: round(waitSeconds),
    minimumSeconds: round(minimumSeconds),
    ratio: round(ratio, 3),
  };
}

export async function run(): Promise<ScenarioResult> {
  const ctx = await fleetContext();
  await ctx.declare(PODS, 0);

  await ctx.resetEmulator(ZERO_TIMINGS);
  const floorUp = await ctx.stack.up({ parallel: PODS });
  await ctx.stack.destroy();
  const floorSeconds = floorUp.seconds + UNAVOIDABLE_SECONDS;
  log(`floor: ${PODS} pods, zero stage durations, no tight quota: up ${floorUp.seconds.toFixed(2)} s, floor ${floorSeconds.toFixed(2)} s`);

  const main = await underQuota(ctx, 60, floorSeconds, 42);
  const binding = await underQuota(ctx, 20, floorSeconds, 42);
  const bindingLate = await underQuota(ctx, 20, floorSeconds, 52);

  const s3 = "3 Rate limit";
  const rows: Row[] = [];
  for (const [r, label] of [
    [main, ""],
    [binding, " (binds)"],
    [bindingLate, " (binds)"],
  ] as const) {
    const at = `${PODS} pods at ${r.quotaPerMinute}/min${label}, first call ${r.firstCallPhaseSeconds.toFixed(0)} s into its window`;
    rows.push(
      {
        scenario: s3,
        figure: `${at}: 429 answers (${r.calls} calls made), failed resources`,
        value: `${r.status429}, ${r.failedResources}`,
        goal: "0, 0",
        met: r.status429 === 0 && r.failedResources === 0,
      },
      {
        scenario: s3,
        figure: `${at}: up wall time vs the minimum the quota allows (${r.windowsNeeded} window${r.windowsNeeded === 1 ? "" : "s"})`,
        value: `${r.upSeconds.toFixed(2)} s`,
        reference: `minimum ${r.minimumSeconds.toFixed(2)} s`,
        ratio: r.ratio,
        goal: "ratio ≤ 1.2",
        met: r.ratio <= 1.2,
      },
    );
  }
  return {
    results: { rateLimit: { pods: PODS, stageMs: FLEET_TIMINGS, floorUpSeconds: round(floorUp.seconds), floorSeconds: round(floorSeconds), quota60: main, quota20: binding, quota20Late: bindingLate } },
    rows,
  };
}
