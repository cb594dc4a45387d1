/**
 * Scenario 6: the emulator under load. It runs as a process of its own (`dist/emulator/bin.js`,
 * state in memory); 1000 CPU pods are stored through the API (capacity raised, the account
 * exempt from rate limits, so the load measures the emulator and not the quota); then this
 * process drives `GET /v2/pods/{id}` over loopback with autocannon for 10 s, cycling through
 * the 1000 ids. RSS comes from /proc/<pid>/status of the emulator: VmRSS after the load and
 * VmHWM (the peak of the whole run, creates included).
 */
import autocannon from "autocannon";
import { Pool } from "undici";
import { EmulatorControl } from "../../emulator";
import { log, memoryOf, raiseCpuCapacity, round, startEmulatorProcess, type EmulatorProcess, type Memory, type Row, type ScenarioResult } from "../lib/common";

const PODS = 1000;
const DURATION_SECONDS = 10;
const CONNECTIONS = 10;

async function createPods(emulator: EmulatorProcess, count: number, concurrency = 16): Promise<string[]> {
  const pool = new Pool(emulator.url, { connections: concurrency });
  const ids: string[] = [];
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const i = next++;
          const response = await pool.request({
            method: "POST",
            path: "/v2/pods",
            headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" },
            body: JSON.stringify({ name: `load-pod-${i}`, image: "alpine:3.20", cpu: { id: "cpu3c", vcpuCount: 2 } }),
          });
          const body = (await response.body.json()) as { id: string };
          if (response.statusCode !== 201) throw new Error(`create ${i}: ${response.statusCode} ${JSON.stringify(body)}`);
          ids.push(body.id);
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return ids.sort();
}

/** Memory of the emulator's process, which must still run. */
function memoryOfLive(pid: number): Memory {
  const memory = memoryOf(pid);
  if (!memory) throw new Error(`the emulator (pid ${pid}) is gone`);
  return memory;
}

export async function run(): Promise<ScenarioResult> {
  const emulator = await startEmulatorProcess(["--profile", "fast"]);
  const control = new EmulatorControl(emulator.url, emulator.adminToken);
  try {
    await raiseCpuCapacity(control, 4 * PODS);
    await control.updateAccount("acct_dev", { exempt: true, balance: 1_000_000 });
    const idle = memoryOfLive(emulator.pid);
    const ids = await createPods(emulator, PODS);
    const stored = memoryOfLive(emulator.pid);
    log(`emulator (pid ${emulator.pid}): ${ids.length} pods stored, RSS ${stored.rssMb.toFixed(0)} MB; ${DURATION_SECONDS} s of GET /v2/pods/{id}, ${CONNECTIONS} connections`);

    let i = 0;
    const result = await autocannon({
      url: emulator.url,
      connections: CONNECTIONS,
      duration: DURATION_SECONDS,
      headers: { authorization: `Bearer ${emulator.apiKey}`, accept: "application/json" },
      requests: [
        {
          method: "GET",
          setupRequest: (request: Record<string, unknown>) => ({ ...request, path: `/v2/pods/${ids[i++ % ids.length]}` }),
        },
      ],
    });
    const after = memoryOfLive(emulator.pid);
    const rps = result.requests.average;
    log(`${rps.toFixed(0)} requests/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}; RSS ${after.rssMb.toFixed(0)} MB, peak ${after.hwmMb.toFixed(0)} MB`);

    const record = {
      podsStored: ids.length,
      durationSeconds: DURATION_SECONDS,
      connections: CONNECTIONS,
      tool: `autocannon@${(require("autocannon/package.json") as { version: string }).version}`,
      requestsPerSecond: round(rps, 0),
      totalRequests: result.requests.total,
      latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      rssMb: { idle: round(idle.rssMb, 0), with1000Pods: round(stored.rssMb, 0), afterLoad: round(after.rssMb, 0), peak: round(after.hwmMb, 0) },
    };
    const s6 = "6 Emulator";
    const rows: Row[] = [
      {
        scenario: s6,
        figure: `GET /v2/pods/{id}, ${PODS} pods stored, ${CONNECTIONS} connections, ${DURATION_SECONDS} s (p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx})`,
        value: `${record.requestsPerSecond} req/s`,
        goal: "≥ 1000 req/s",
        met: rps >= 1000 && result.non2xx === 0 && result.errors === 0,
      },
      {
        scenario: s6,
        figure: `emulator RSS, peak (VmHWM) of the run (after the load: ${record.rssMb.afterLoad} MB)`,
        value: `${record.rssMb.peak} MB`,
        goal: "< 200 MB",
        met: after.hwmMb < 200,
      },
    ];
    return { results: { emulator: record }, rows };
  } finally {
    await emulator.close();
  }
}
