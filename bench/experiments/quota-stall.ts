/**
 * Experiment behind the note on binding quotas in docs/benchmarks.md (scenario 3): the
 * provider's code path without the engine — 30 CPU pods created with the SDK and awaited with
 * the shared `podWatcher` — under a quota of 20 calls per minute, 6 s provisioning and 2 s
 * starting, the first call 55 s into its window. The quota allows about 15 s (20 creates
 * now, 10 creates and enough polls right after the window turns at 60 s, pods RUNNING 8 s
 * later); the SDK took about 28.5 s before polls were spaced by the limiter's budget
 * (RateLimiter.pollSpacingMs), and takes about 16.5 s since. Also run with the limiter's low-water spreading
 * off (lowWaterFraction 0), which is slower still (the polls use up the second window and the
 * last one waits for the third), so removing the spreading alone is not the fix.
 *
 *   node dist/bench/experiments/quota-stall.js      (after `npm run build`)
 */
import { createHash } from "node:crypto";
import { EmulatorControl, startEmulator } from "../../emulator";
import { ComputeClient } from "../../sdk";
import { RateLimiter } from "../../sdk/rate-limit";

async function once(lowWaterFraction: number | undefined): Promise<void> {
  const emulator = await startEmulator({ port: 0, profile: "fast", quiet: true, timings: { podProvisioningMs: 6000, podStartingMs: 2000 } });
  const control = new EmulatorControl(emulator.url, emulator.adminToken);
  if (lowWaterFraction !== undefined) {
    // The SDK's process-wide limiter registry: put a differently tuned limiter in first.
    const slot = globalThis as unknown as Record<symbol, Map<string, RateLimiter> | undefined>;
    const registry = (slot[Symbol.for("pulumi-compute.rate-limiters")] ??= new Map());
    registry.set(createHash("sha256").update(`${emulator.url}\n${emulator.apiKey}\n`).digest("hex"), new RateLimiter({ lowWaterFraction }));
  }
  await control.updateAccount("acct_dev", { rateLimits: { minute: 20, hour: 1_000_000, day: 10_000_000 } });
  const { now } = await control.clock();
  const start = new Date(now);
  start.setUTCSeconds(55, 0);
  await control.setClock({ set: start.toISOString() });
  const client = new ComputeClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 30 }, async (_, i) => {
      const pod = await client.pods.create({ name: `stall-${i}`, image: "alpine:3.20", cpu: { id: "cpu3c", vcpuCount: 2 } });
      await client.podWatcher.waitFor(pod.id, (p) => p.status === "RUNNING");
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const requests = await control.requests();
  const first = Date.parse(requests[0]!.time);
  const timeline = requests.map((r) => `${((Date.parse(r.time) - first) / 1000).toFixed(1)} ${r.method === "POST" ? "create" : "poll"}`);
  process.stdout.write(
    `lowWaterFraction ${lowWaterFraction ?? "0.1 (as built)"}: all RUNNING after ${seconds.toFixed(1)} s, ${requests.length} calls, ` +
      `${requests.filter((r) => r.status === 429).length} × 429\n  calls (s after the first): ${timeline.join(", ")}\n`,
  );
  await client.close();
  await emulator.close();
}

(async () => {
  await once(undefined);
  await once(0);
})().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
