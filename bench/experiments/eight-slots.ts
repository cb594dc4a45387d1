/**
 * Experiment behind scenario 2's default-parallelism row (docs/benchmarks.md, "Scenario 2 at the
 * engine's default parallelism"): how many API calls per pod does the provider's runtime make
 * when pods are created 8 at a time, as the engine's default parallelism on 2 cores allows,
 * without the engine? 40 CPU pods, the fleet's stages (2 s provisioning, 2 s starting), created
 * through the runtime in-process (check first, not counted; then create until RUNNING) by 8
 * slots that each take the next pod as soon as theirs is created. Prints the calls per pod and
 * every `/v2/pods` call by time (P: create, L: list, G: read by id).
 *
 *   node dist/bench/experiments/eight-slots.js [pods] [slots]
 *
 * (after `npm run build`; 40 pods and 8 slots by default).
 */
import { EmulatorControl, startEmulator } from "../../emulator";
import * as runtime from "../../provider/runtime";
import { podResource } from "../../provider/resources/pod";
import { dynamicToken } from "../../provider/resources/definition";
import { ownerMark } from "../../sdk";
import { FLEET_TIMINGS, log, round } from "../lib/common";

(async () => {
  const pods = Number(process.argv[2] ?? 40);
  const slots = Number(process.argv[3] ?? 8);
  const started = await startEmulator({ port: 0, profile: "fast", quiet: true, timings: FLEET_TIMINGS });
  const control = new EmulatorControl(started.url, started.adminToken);
  try {
    runtime.configure({ get: (key: string) => ({ "compute:baseUrl": started.url, "compute:apiKey": started.apiKey })[key] });
    const token = dynamicToken(podResource);
    const handlers = runtime.handlersFor(token);
    const checked = await Promise.all(
      Array.from({ length: pods }, async (_, i) => {
        const name = `pod-${i}`;
        const mark = ownerMark({ organization: "o", project: "bench", stack: "slots", backend: "file:///bench", urn: `urn:pulumi:slots::bench::${token}::${name}`, salt: "s" });
        const request = { name, image: "alpine:3.20", cpu: { id: "cpu3c", vcpuCount: 2 }, namePrefix: name, ownerMark: mark, secretInputs: [], __provider: "bench" };
        return (await handlers.check({}, request)).inputs;
      }),
    );
    await control.clearRequests();
    const begun = Date.now();
    let next = 0;
    const slot = async () => {
      while (next < checked.length) await handlers.create(checked[next++]!);
    };
    await Promise.all(Array.from({ length: slots }, slot));
    const seconds = (Date.now() - begun) / 1000;
    const calls = (await control.requests()).filter((r) => r.path.startsWith("/v2/pods"));
    const letter = (r: { method: string; path: string }) => (r.method === "POST" ? "P" : r.path === "/v2/pods" ? "L" : "G");
    log(`${pods} pods, ${slots} slots: all RUNNING after ${round(seconds)} s; ${calls.length} calls to /v2/pods, ${round(calls.length / pods, 3)} per pod`);
    log(calls.map((r) => `${letter(r)}@${((Date.parse(r.time) - begun) / 1000).toFixed(2)}`).join(" "));
  } finally {
    await started.close();
  }
})().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
