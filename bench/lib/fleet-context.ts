/**
 * One in-process emulator and one stack of the fleet program, shared by the scenarios that run
 * `pulumi up` (1–4 and 7), created on first use. A warm-up up/destroy of one pod and one
 * sandbox runs first, so no timed run pays for cold caches (ts-node, the plugin host, the
 * engine's first start).
 */
import { EmulatorControl, startEmulator, type RunningEmulator, type Timings } from "../../emulator";
import { log, raiseCpuCapacity, ZERO_TIMINGS } from "./common";
import { createStack, type BenchStack } from "./stack";

export interface FleetContext {
  emulator: RunningEmulator;
  control: EmulatorControl;
  stack: BenchStack;
  /** Back to the fixture, with room for the largest fleet. Call only while the stack is empty. */
  resetEmulator(timings?: Partial<Timings>): Promise<void>;
  /** Declares `pods` pods and `sandboxes` sandboxes. */
  declare(pods: number, sandboxes: number): Promise<void>;
  dispose(): Promise<void>;
}

let shared: FleetContext | undefined;

export async function fleetContext(): Promise<FleetContext> {
  if (shared) return shared;
  const emulator = await startEmulator({ port: 0, profile: "fast", quiet: true, timings: ZERO_TIMINGS });
  const control = new EmulatorControl(emulator.url, emulator.adminToken);
  const stack = await createStack({ name: "fleet", program: "fleet", emulator, config: { "bench:pods": 1, "bench:sandboxes": 1 } });
  const resetEmulator = async (timings: Partial<Timings> = ZERO_TIMINGS) => {
    await control.reset();
    await raiseCpuCapacity(control);
    await control.setTimings(timings);
    await control.clearRequests();
  };
  shared = {
    emulator,
    control,
    stack,
    resetEmulator,
    declare: (pods, sandboxes) => stack.setConfig({ "bench:pods": pods, "bench:sandboxes": sandboxes }),
    async dispose() {
      shared = undefined;
      await stack.dispose();
      await emulator.close();
    },
  };
  log("warm-up: up and destroy of 1 pod + 1 sandbox (not measured)");
  await resetEmulator();
  await stack.up();
  await stack.destroy();
  return shared;
}

export async function disposeFleetContext(): Promise<void> {
  if (shared) await shared.dispose();
}
