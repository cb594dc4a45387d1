/** How the emulator is started: the options of `startEmulator` and the flags of `compute-emulator`. */
import type { Shape } from "./shape";

/** Durations of each lifecycle stage, in milliseconds of emulator-clock time. */
export interface Timings {
  /** POST /v2/pods: PROVISIONING lasts this long before STARTING. */
  podProvisioningMs: number;
  /** STARTING lasts this long before RUNNING (create, start, restart, restarting PATCH). */
  podStartingMs: number;
  /** A deleted pod reads as TERMINATED for this long, then 404. */
  podStoppingMs: number;
  /** A sandbox stays CREATING this long before RUNNING. */
  sandboxCreatingMs: number;
  /** A running container prints one line per interval. */
  logIntervalMs: number;
  /** A RUNNING pod's services (its `ports`) answer this long after it became RUNNING (emulator/services). */
  serviceStartMs: number;
  /** A serverless worker is INITIALIZING this long after it starts (endpoint create, or a PATCH that restarts it), then IDLE. */
  workerReadyMs: number;
}

export type Profile = "fast" | "realistic";

/** `fast` keeps test suites quick; `realistic` lets a demo show each stage for a few seconds. */
export const PROFILES: Record<Profile, Timings> = {
  fast: { podProvisioningMs: 100, podStartingMs: 100, podStoppingMs: 100, sandboxCreatingMs: 100, logIntervalMs: 1000, serviceStartMs: 0, workerReadyMs: 200 },
  realistic: { podProvisioningMs: 5000, podStartingMs: 4000, podStoppingMs: 3000, sandboxCreatingMs: 3000, logIntervalMs: 1000, serviceStartMs: 3000, workerReadyMs: 8000 },
};

export const TIMING_KEYS = Object.keys(PROFILES.fast) as Array<keyof Timings>;

export interface EmulatorOptions {
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Port; 0 picks any free port. Default 0. */
  port?: number;
  /** Directory for the durable state file; omit to keep state in memory only. */
  dataDir?: string;
  /** Fixture file path or fixture object; default: the built-in fixture. */
  fixture?: string | object;
  /** Default `fast`. */
  profile?: Profile;
  /** Per-stage overrides on top of the profile. */
  timings?: Partial<Timings>;
  /** Bearer token of the `/_emulator/` control plane. Default: the fixture's, else `emulator-admin-token`. */
  adminToken?: string;
  /** Start with the clock frozen (true: at the current time; a string: at that RFC 3339 instant). */
  freezeClock?: boolean | string;
  /**
   * Answer shape: `seed` (our reading of the API) or `public` (as the public OpenAPI describes,
   * with its liberties). Default: the COMPUTE_EMULATOR_SHAPE environment variable, else `seed`.
   */
  shape?: Shape;
  /** Do not print the startup lines. */
  quiet?: boolean;
}

export const DEFAULT_ADMIN_TOKEN = "emulator-admin-token";

/**
 * What `compute-emulator --ready-file <path>` writes and `--print json` prints once the server
 * listens: everything a script or a test needs, so none has to read the human start-up lines.
 * It holds the same development credentials those lines show.
 */
export interface EmulatorReady {
  /** Base URL without `/v2`. */
  url: string;
  /** The fixture's development API key. */
  apiKey: string;
  /** Bearer token of the `/_emulator/` control plane. */
  adminToken: string;
  /** The emulator's process id (to signal it, or to read its memory). */
  pid: number;
  shape: Shape;
  /** The state directory, or null when state lives in memory. */
  dataDir: string | null;
}

export function resolveTimings(profile: Profile = "fast", overrides: Partial<Timings> = {}): Timings {
  const base = PROFILES[profile];
  if (!base) throw new Error(`Unknown timing profile "${profile}" (expected "fast" or "realistic")`);
  const out = { ...base };
  for (const key of TIMING_KEYS) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value < 0) throw new Error(`Timing ${key} must be a number >= 0, got ${value}`);
    out[key] = value;
  }
  if (out.logIntervalMs < 1) out.logIntervalMs = 1;
  return out;
}
