/**
 * Scenario 8 (issue 14): the native plugin against the dynamic resources, for the same fleet
 * (40 CPU pods, 40 sandboxes, 2 s stages, --parallel 80; bench/programs/fleet, with
 * `bench:native` for the plugin) against one in-process emulator.
 *
 * - State: bytes per managed resource in the exported deployment (its `resources` entry:
 *   inputs, outputs, and for the dynamic resources the serialized provider stored in both).
 *   Goal: native below 3 KB per resource.
 * - `pulumi up` time of the fleet through each, interleaved `repeats` times, destroy untimed in
 *   between; the ratio native / dynamic of the medians. Goal: no slower (≤ 1.00; the run-to-run
 *   spread of either is printed with it, so a ratio within it reads as "the same").
 */
import { EmulatorControl, startEmulator, type Timings } from "../../emulator";
import { createStack, type BenchStack, type Deployment } from "../lib/stack";
import { FLEET_TIMINGS, fleetTypes, log, median, raiseCpuCapacity, round, ZERO_TIMINGS, type Row, type ScenarioResult } from "../lib/common";

const PODS = 40;
const SANDBOXES = 40;
const FACES = [
  { face: "dynamic", native: false, types: fleetTypes("dynamic") },
  { face: "native", native: true, types: fleetTypes("native") },
];

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

/** Average bytes of the state entries of `types`, and how many there are. */
function stateBytesPerResource(deployment: Deployment, types: string[]): { resources: number; bytesPerResource: number } {
  const managed = (deployment.resources ?? []).filter((r) => types.includes(r.type));
  return { resources: managed.length, bytesPerResource: managed.length ? managed.reduce((sum, r) => sum + bytes(r), 0) / managed.length : 0 };
}

/** Median, lowest and highest of a list of seconds, as "m s (lo–hi)". */
const spread = (seconds: number[]) => `${median(seconds).toFixed(2)} s (${Math.min(...seconds).toFixed(2)}–${Math.max(...seconds).toFixed(2)})`;

interface FaceRun {
  face: string;
  native: boolean;
  types: string[];
  stack: BenchStack;
  seconds: number[];
  state?: { resources: number; bytesPerResource: number };
}

export async function run({ repeats }: { repeats: number }): Promise<ScenarioResult> {
  const emulator = await startEmulator({ port: 0, profile: "fast", quiet: true, timings: ZERO_TIMINGS });
  const control = new EmulatorControl(emulator.url, emulator.adminToken);
  const stacks: FaceRun[] = [];
  try {
    for (const face of FACES) {
      const config = { "bench:pods": 1, "bench:sandboxes": 1, "bench:native": String(face.native) };
      const stack = await createStack({ name: `native-${face.face}`, program: "fleet", emulator, config });
      stacks.push({ ...face, stack, seconds: [] });
    }
    const reset = async (timings: Partial<Timings>) => {
      await control.reset();
      await raiseCpuCapacity(control);
      await control.setTimings(timings);
    };
    // Warm-up of each (cold caches, the plugin's first start): not measured.
    for (const s of stacks) {
      log(`warm-up (${s.face}): up and destroy of 1 pod + 1 sandbox (not measured)`);
      await reset(ZERO_TIMINGS);
      await s.stack.up();
      await s.stack.destroy();
      await s.stack.setConfig({ "bench:pods": PODS, "bench:sandboxes": SANDBOXES, "bench:native": String(s.native) });
    }
    for (let i = 0; i < repeats; i++) {
      for (const s of stacks) {
        await reset(FLEET_TIMINGS);
        const up = await s.stack.up({ parallel: PODS + SANDBOXES });
        s.seconds.push(up.seconds);
        log(`${s.face} #${i + 1}: pulumi up ${up.seconds.toFixed(2)} s`);
        if (i === 0) s.state = stateBytesPerResource(await s.stack.exportDeployment(), s.types);
        await s.stack.destroy();
      }
    }
  } finally {
    for (const s of stacks) await s.stack.dispose().catch((error: Error) => log(`cleanup: ${error.message}`));
    await emulator.close();
  }

  const [dynamic, native] = stacks as [FaceRun, FaceRun];
  if (!dynamic.state || !native.state) throw new Error("no repeat ran (--repeats must be at least 1)");
  const ratio = median(native.seconds) / median(dynamic.seconds);
  const nativeVsDynamic = {
    pods: PODS,
    sandboxes: SANDBOXES,
    stageMs: FLEET_TIMINGS,
    repeats,
    upSeconds: Object.fromEntries(stacks.map((s) => [s.face, s.seconds.map((x) => round(x))])),
    upRatio: round(ratio, 3),
    stateBytesPerResource: Object.fromEntries(stacks.map((s) => [s.face, round(s.state!.bytesPerResource, 0)])),
  };
  const s8 = "8 Native plugin";
  const rows: Row[] = [
    {
      scenario: s8,
      figure: `state per resource, native (${native.state.resources} resources)`,
      value: `${round(native.state.bytesPerResource, 0)} B`,
      reference: `dynamic ${round(dynamic.state.bytesPerResource, 0)} B`,
      ratio: round(native.state.bytesPerResource / dynamic.state.bytesPerResource, 3),
      goal: "< 3072 B",
      met: native.state.bytesPerResource < 3072,
    },
    {
      scenario: s8,
      figure: `pulumi up, ${PODS} pods + ${SANDBOXES} sandboxes, native (median, min–max of ${repeats})`,
      value: spread(native.seconds),
      reference: `dynamic ${spread(dynamic.seconds)}`,
      ratio: round(ratio, 3),
      goal: "ratio ≤ 1.00",
      met: ratio <= 1,
    },
  ];
  return { results: { nativeVsDynamic }, rows };
}
