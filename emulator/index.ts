/**
 * A local emulator of the Compute Service REST API v2, for tests and demos.
 *
 *   const emulator = await startEmulator({ profile: "fast" });
 *   // emulator.url (no /v2 suffix), emulator.apiKey, emulator.adminToken
 *   await emulator.close();
 *
 * Flags, fixture format, timing profiles and the control plane: docs/emulator.md.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Emulator } from "./emulator";
import { loadFixture } from "./fixture";
import { DEFAULT_ADMIN_TOKEN, resolveTimings, type EmulatorOptions } from "./options";
import { Gateway } from "./server";
import { defaultShape, parseShape } from "./shape";
import { parseMillis } from "./time";

export { EmulatorControl, EmulatorControlError } from "./control-client";
export type {
  AccountSettings,
  CapacityAnswer,
  CapacityState,
  ClockState,
  CpuCapacity,
  CpuCapacityAnswer,
  FaultSpec,
  GpuCapacity,
  GpuCapacityAnswer,
  GpuUtilizationChange,
  GpuUtilizationReport,
  LoggedRequest,
  NextServices,
  NextServicesChange,
  PendingCapacity,
  PodServiceReport,
  ServiceChange,
  ServiceEvent,
  WorkersAnswer,
  WorkersChange,
} from "./control-client";
export type { EmulatorOptions, Profile, Timings } from "./options";
export { PROFILES } from "./options";
export { SHAPES, type Shape } from "./shape";

export interface RunningEmulator {
  /** Base URL without `/v2`, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** The fixture's development API key. */
  apiKey: string;
  /** Bearer token of the `/_emulator/` control plane. */
  adminToken: string;
  close(): Promise<void>;
}

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const fixture = loadFixture(options.fixture);
  const timings = resolveTimings(options.profile ?? "fast", options.timings);
  // Checked here too: a JavaScript caller (or a cast) may pass anything.
  const shape = options.shape === undefined ? defaultShape() : parseShape(options.shape, "shape");
  const emulator = new Emulator({ fixture, timings, dataDir: options.dataDir, shape });
  const started = emulator.start();
  const adminToken = options.adminToken ?? emulator.fixture.adminToken ?? DEFAULT_ADMIN_TOKEN;
  if (options.freezeClock !== undefined && options.freezeClock !== false) {
    // Freeze first, then set: setting a running clock and freezing it after would drift.
    emulator.clock.freeze();
    if (typeof options.freezeClock === "string") {
      const at = parseMillis(options.freezeClock);
      if (at === undefined) throw new Error(`freezeClock: "${options.freezeClock}" is not an RFC 3339 date-time`);
      emulator.clock.set(at);
    }
  }

  const gateway = new Gateway(emulator, adminToken);
  const server = createServer({ keepAliveTimeout: 10000 }, gateway.listener);
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${urlHost(host)}:${port}`;
  const apiKey = emulator.fixture.defaultApiKey;
  if (!options.quiet) {
    console.log(`Compute emulator listening on ${url}`);
    console.log(`API key: ${apiKey}`);
    console.log(`Admin token: ${adminToken}`);
    if (shape !== "seed") console.log(`Answer shape: ${shape}`);
    console.log(
      options.dataDir
        ? `State: ${options.dataDir}/state.json (${started === "restored" ? "restored" : "new, from fixture " + emulator.fixture.name})`
        : `State: in memory (fixture ${emulator.fixture.name})`,
    );
  }

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= Promise.all([
      emulator.stop(),
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    ]).then(() => undefined);
    return closing;
  };
  return { url, apiKey, adminToken, close };
}
