/**
 * Experiment behind scenario 9's missed goal (docs/benchmarks.md, "Scenario 9"): is the time of
 * a 1000-resource `up` of the dynamic resources the engine's own? The engine writes the whole
 * checkpoint (the stack's state) after every step, so a stack of n resources writes n
 * checkpoints that grow to n × (state per resource): O(n²) bytes serialized, and a dynamic
 * resource's state is four times a native one's (its serialized provider, twice). This runs the
 * fleet of 1000 (500 pods, 500 sandboxes, realistic timings, --parallel 1000) twice, as built
 * and with `PULUMI_SKIP_CHECKPOINTS=true` (the engine's own switch: only the final state is
 * written; not for real use, a crash then loses the run's record), and prints wall time and
 * the engine's CPU seconds for each.
 *
 *   COMPUTE_PULUMI_ROOT=<engine root> node dist/bench/experiments/checkpoints.js [count] [skipped]
 *
 * (after `npm run build`; count defaults to 1000; `skipped` runs only the second up, whose
 * "written" counterpart is scenario 9's own dynamic up of the same size).
 */
import type { LocalWorkspace } from "@pulumi/pulumi/automation";
import { EmulatorControl } from "../../emulator";
import { cpuOf, log, raiseCpuCapacity, round, sampler, startEmulatorProcess } from "../lib/common";
import { createStack } from "../lib/stack";

(async () => {
  const count = Number(process.argv[2] ?? 1000);
  const emulator = await startEmulatorProcess(["--profile", "realistic", "--quiet"]);
  const control = new EmulatorControl(emulator.url, emulator.adminToken);
  const stack = await createStack({ name: "checkpoints", program: "fleet", emulator, config: { "bench:pods": count / 2, "bench:sandboxes": count / 2 } });
  try {
    for (const skip of process.argv[3] === "skipped" ? [true] : [false, true]) {
      const env = (stack.stack.workspace as LocalWorkspace).envVars;
      if (skip) env.PULUMI_SKIP_CHECKPOINTS = "true";
      else delete env.PULUMI_SKIP_CHECKPOINTS;
      await control.reset();
      await raiseCpuCapacity(control);
      const engine = sampler("/bin/pulumi up");
      const program = sampler("@pulumi/pulumi/cmd/run/index.js");
      const provider = sampler("@pulumi/pulumi/cmd/dynamic-provider/index.js");
      const up = await stack.up({ parallel: count });
      const cpu = { engine: round(cpuOf(engine.stop()), 1), program: round(cpuOf(program.stop()), 1), provider: round(cpuOf(provider.stop()), 1) };
      log(`${count} resources, checkpoints ${skip ? "skipped" : "written"}: up ${round(up.seconds)} s (${round(up.seconds / count, 4)} s/resource); CPU s ${JSON.stringify(cpu)}`);
      await stack.destroy({ parallel: count });
    }
  } finally {
    await stack.dispose();
    await emulator.close();
  }
})().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
