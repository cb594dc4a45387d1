/**
 * The SDK's pod log reader against the emulator in the `public` answer shape, where pod log
 * streams behave as the public OpenAPI allows: whole-second ids shared by every line of that
 * second, and a stream that ends with 200 (no 409) once the container stops (docs/emulator.md).
 */
import { ComputeClient, type LogEvent } from "../../sdk";
import { openLogStream, readBackfill, runningPod, useEmulator } from "../emulator/harness";
import { eventually } from "../helpers/eventually";

// Five lines a second, so seconds hold several lines.
const h = useEmulator({ shape: "public", freezeClock: "2030-05-01T08:00:00Z", timings: { logIntervalMs: 200 } });

async function until(condition: () => boolean): Promise<void> {
  await eventually("the log lines", condition, { intervalMs: 10 });
}

test("follows a pod with whole-second ids: every line once, in order, and ends when the pod stops", async () => {
  const pod = await runningPod(h);
  await h.control.advance(3000);
  const client = new ComputeClient({ baseUrl: h.url, apiKey: h.apiKey, env: {} });
  try {
    const got: LogEvent[] = [];
    const reading = (async () => {
      for await (const event of client.pods.logs(pod.id, { tail: 5000 })) got.push(event);
    })();
    await until(() => got.length >= 10);
    const history = got.length;
    await h.control.advance(2000); // live lines, several per second
    await until(() => got.length > history + 5);
    await client.pods.stop(pod.id);
    await h.control.advance(1000); // the stop completes; the stream ends with 200
    await reading; // ends by itself: the pod is EXITED

    const raw = await openLogStream(h, `/v2/pods/${pod.id}/logs?tail=5000`);
    const truth = (await readBackfill(raw)).map((e) => e.data); // closes the stream
    expect(got.map(({ source, line, ts }) => ({ source, line, ts }))).toEqual(truth);
    const perSecond = new Map<string, number>();
    for (const e of got) perSecond.set(e.ts.slice(0, 19), (perSecond.get(e.ts.slice(0, 19)) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeGreaterThan(1);
  } finally {
    await client.close();
  }
});
