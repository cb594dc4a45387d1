/**
 * Scenario 7: peak memory of the dynamic-provider process (`node …/@pulumi/pulumi/cmd/
 * dynamic-provider/index.js`, started by the engine through pulumi-resource-pulumi-nodejs) while
 * `pulumi up` creates a 200-resource stack: 100 CPU pods and 100 sandboxes, 2 s stages, all in
 * flight at once (`--parallel 200`). Every ~100 ms the /proc of each such process (descendants
 * of the bench only) is read: VmRSS, and VmHWM (the kernel's own peak), whose last reading is
 * the peak of the process. The program's process (`…/@pulumi/pulumi/cmd/run/index.js`) is
 * sampled the same way, for reference.
 */
import { fleetContext } from "../lib/fleet-context";
import { FLEET_TIMINGS, highest, log, round, sampler, type Row, type ScenarioResult } from "../lib/common";

const PODS = 100;
const SANDBOXES = 100;

export async function run(): Promise<ScenarioResult> {
  const ctx = await fleetContext();
  await ctx.declare(PODS, SANDBOXES);
  await ctx.resetEmulator(FLEET_TIMINGS);
  const provider = sampler("@pulumi/pulumi/cmd/dynamic-provider/index.js");
  const program = sampler("@pulumi/pulumi/cmd/run/index.js");
  const up = await ctx.stack.up({ parallel: PODS + SANDBOXES });
  const providerPeaks = provider.stop();
  const programPeaks = program.stop();
  await ctx.stack.destroy();
  if (providerPeaks.length === 0) throw new Error("no dynamic-provider process was seen during the up");

  const providerPeak = highest(providerPeaks)!;
  const programPeak = highest(programPeaks);
  log(`${PODS + SANDBOXES} resources: up ${up.seconds.toFixed(1)} s, provider process peak RSS ${providerPeak.toFixed(0)} MB, program ${programPeak?.toFixed(0)} MB`);

  const record = {
    pods: PODS,
    sandboxes: SANDBOXES,
    stageMs: FLEET_TIMINGS,
    parallel: PODS + SANDBOXES,
    upSeconds: round(up.seconds),
    providerProcesses: providerPeaks.length,
    providerPeakRssMb: round(providerPeak, 0),
    providerSamples: providerPeaks.reduce((s, p) => s + p.samples, 0),
    programPeakRssMb: round(programPeak, 0),
  };
  const rows: Row[] = [
    {
      scenario: "7 Provider process",
      figure: `dynamic-provider peak RSS, ${PODS} pods + ${SANDBOXES} sandboxes, --parallel ${PODS + SANDBOXES} (program process: ${record.programPeakRssMb} MB)`,
      value: `${record.providerPeakRssMb} MB`,
      goal: "none (recorded)",
      met: null,
    },
  ];
  return { results: { providerProcess: record }, rows };
}
