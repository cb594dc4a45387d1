"use strict";
/**
 * One in-process emulator and one stack of the fleet program, shared by the scenarios that run
 * `pulumi up` (1–4 and 7), created on first use. A warm-up up/destroy of one pod and one
 * sandbox runs first, so no timed run pays for cold caches (ts-node, the plugin host, the
 * engine's first start).
 */
const { createStack } = require("./engine");
const { dist, log, raiseCpuCapacity, ZERO_TIMINGS } = require("./common");

let shared;

async function fleetContext() {
  if (shared) return shared;
  const { startEmulator, EmulatorControl } = require(dist("emulator"));
  const emulator = await startEmulator({ port: 0, profile: "fast", quiet: true, timings: ZERO_TIMINGS });
  const control = new EmulatorControl(emulator.url, emulator.adminToken);
  const stack = await createStack({ name: "fleet", program: "fleet", emulator, config: { "bench:pods": 1, "bench:sandboxes": 1 } });
  /** Back to the fixture, with room for the largest fleet. Call only while the stack is empty. */
  const resetEmulator = async (timings = ZERO_TIMINGS) => {
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
    /** Declares `pods` pods and `sandboxes` sandboxes. */
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

async function disposeFleetContext() {
  if (shared) await shared.dispose();
}

module.exports = { fleetContext, disposeFleetContext };
