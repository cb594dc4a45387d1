/**
 * The control plane's wire: request schemas (checked by the gateway, 400 with every violation)
 * and the answers' types. `EmulatorControl` (control-client.ts) takes its types from here, so the
 * client and the server cannot drift apart.
 */
import { z } from "zod";
import { describeRule, MIN_IDLE_TIMEOUT_SECONDS, MIN_MAX_LIFETIME_SECONDS } from "../../contract";
import { FaultInput, type FaultRule } from "../faults";
import { MachineFixture } from "../fixture";
import { TIMING_KEYS, type Timings } from "../options";
import type { CapacityReport, CpuPool, Machine, PendingCapacity } from "../placement/capacity";
import { SERVICE_MODES, type GpuUtilizationSpec } from "../pods/record";
import type { LoggedRequest } from "../request-log";
import { WORKER_MODES, type WorkerMode } from "../serverless/workers";
import type { ServiceEvent } from "../services/events";
import type { NextServices, PodServiceReport } from "../services/report";
import { SHAPES, type Shape } from "../shape";

export const ClockRequest = z.strictObject({
  freeze: z.boolean().optional(),
  advanceMs: z.number().min(0).optional(),
  set: z.string().optional(),
});

export const TimingsRequest = z.strictObject(
  Object.fromEntries(TIMING_KEYS.map((k) => [k, z.number().min(0).optional()])) as Record<keyof Timings, z.ZodOptional<z.ZodNumber>>,
);

export const GpuCapacityRequest = z.strictObject({
  dataCenterId: z.string(),
  gpuTypeId: z.string(),
  cloud: z.enum(["SECURE", "COMMUNITY"]).default("SECURE"),
  available: z.int().min(0).optional(),
  machines: z.array(MachineFixture).optional(),
  cudaVersion: z.string().nullable().optional(),
  ramPerGpu: z.number().min(1).optional(),
  vcpuPerGpu: z.number().min(1).optional(),
  /** Applies the setting when the emulator clock reaches (the clock at the PUT) + this; absent: now. */
  afterSeconds: z.number().min(0).optional(),
});
export const CpuCapacityRequest = z.strictObject({ dataCenterId: z.string(), cpuFlavorId: z.string(), available: z.int().min(0) });

/**
 * A body of two forms, told apart by whether it holds `key`: read by `withKey` if so, else by
 * `otherwise`. Unlike a zod union, each violation then names the field of the form it is in
 * (worded as the contract words them; an unknown property by its own name).
 */
function eitherBy<A, B>(key: string, withKey: z.ZodType<A>, otherwise: z.ZodType<B>) {
  return z.unknown().transform((body, ctx): A | B => {
    const has = typeof body === "object" && body !== null && key in body;
    const parsed = (has ? withKey : otherwise).safeParse(body, { error: (issue) => describeRule(issue) });
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      const paths = issue.code === "unrecognized_keys" ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
      for (const path of paths) ctx.addIssue({ code: "custom", message: issue.message, path, input: body });
    }
    return z.NEVER;
  });
}

/** A CPU pool is named by `cpuFlavorId`; anything else is read as a GPU pool. */
export const CapacityRequest = eitherBy("cpuFlavorId", CpuCapacityRequest, GpuCapacityRequest).transform((body) =>
  "cpuFlavorId" in body ? { cpu: body } : { gpu: body },
);

export const ShapeRequest = z.strictObject({ shape: z.enum(SHAPES) });

export const FailNextRequest = z.strictObject({ kind: z.enum(["pod", "sandbox"]), count: z.int().min(0).default(1) });
export const PodErrorRequest = z.strictObject({ message: z.string().optional() });

/** PUT /_emulator/pods/{id}/service: how the pod's services behave; `delayMs` (from RUNNING) replaces `serviceStartMs`. */
export const ServiceRequest = z.strictObject({ mode: z.enum(SERVICE_MODES), delayMs: z.number().min(0).optional() });
/** PUT /_emulator/services/next: the same settings for the next `count` pods created. */
export const NextServicesRequest = z.strictObject({ mode: z.enum(SERVICE_MODES), delayMs: z.number().min(0).optional(), count: z.int().min(0).default(1) });
/** PUT /_emulator/serverless/{id}/workers: how the endpoint's workers behave; `delayMs` (from each worker's start) replaces `workerReadyMs`. */
export const WorkersRequest = z.strictObject({ mode: z.enum(WORKER_MODES), delayMs: z.number().min(0).optional() });

/** A GPU utilisation, in percent. */
const Utilization = z.int().min(0).max(100);
/** PUT /_emulator/pods/{id}/gpu-utilization, a constant: every GPU of the pod reads `util` from now on. */
export const ConstantGpuUtilization = z.strictObject({ util: Utilization });
/** The same, a step curve: each point's `util` from `afterSeconds` after the PUT until the next point. */
export const GpuUtilizationCurve = z.strictObject({
  curve: z
    .array(z.strictObject({ afterSeconds: z.number().min(0), util: Utilization }))
    .min(1)
    .superRefine((points, ctx) => {
      for (let i = 1; i < points.length; i++) {
        if (points[i].afterSeconds > points[i - 1].afterSeconds) continue;
        const message = `must be greater than curve[${i - 1}].afterSeconds (${points[i - 1].afterSeconds}): points go in increasing afterSeconds`;
        ctx.addIssue({ code: "custom", message, path: [i, "afterSeconds"], input: points });
      }
    }),
});
/** A body with `curve` is a curve; any other is read as a constant (so `{}` is told its `util` is required). */
export const GpuUtilizationRequest = eitherBy("curve", GpuUtilizationCurve, ConstantGpuUtilization);

/** PUT /_emulator/accounts/{id}: balance, quotas, exemption, sandbox maxima and SSH keys. */
export const AccountPatch = z.strictObject({
  balance: z.number().optional(),
  rateLimits: z
    .strictObject({ minute: z.int().min(0).optional(), hour: z.int().min(0).optional(), day: z.int().min(0).optional() })
    .optional(),
  exempt: z.boolean().optional(),
  maxIdleTimeoutSeconds: z.int().min(MIN_IDLE_TIMEOUT_SECONDS).optional(),
  maxLifetimeSeconds: z.int().min(MIN_MAX_LIFETIME_SECONDS).optional(),
  sshKeys: z.array(z.string()).optional(),
});

/** PUT /_emulator/api-keys/{key}: a key the console issued (scopes default to every family). */
export const ApiKeyIssue = z.strictObject({
  name: z.string().default("issued by the control plane"),
  userId: z.string(),
  accountId: z.string(),
  scopes: z.array(z.string()).default(["*"]),
});

export { FaultInput };

// ---- what clients send (inputs: defaults may be left out) ------------------------------------

export type ClockChange = z.input<typeof ClockRequest>;
export type TimingsChange = z.input<typeof TimingsRequest>;
export type GpuCapacity = z.input<typeof GpuCapacityRequest>;
export type CpuCapacity = z.input<typeof CpuCapacityRequest>;
export type CpuCapacityRequest = z.output<typeof CpuCapacityRequest>;
export type GpuCapacityRequest = z.output<typeof GpuCapacityRequest>;
export type FailNextChange = z.input<typeof FailNextRequest>;
export type ServiceChange = z.input<typeof ServiceRequest>;
export type NextServicesChange = z.input<typeof NextServicesRequest>;
export type WorkersChange = z.input<typeof WorkersRequest>;
/** `{util}`: a constant; `{curve: [{afterSeconds, util}, ...]}`: a step curve from the moment it is set. */
export type GpuUtilizationChange = z.input<typeof ConstantGpuUtilization> | z.input<typeof GpuUtilizationCurve>;
export type AccountSettings = z.input<typeof AccountPatch>;
export type ApiKeySettings = z.input<typeof ApiKeyIssue>;
export type AccountPatch = z.output<typeof AccountPatch>;
/** A fault rule: `path` is exact or a glob (`*` matches any characters, `/` included); `after` executes the request first. */
export type FaultSpec = z.input<typeof FaultInput>;

// ---- what the control plane answers ------------------------------------------------------------

export interface ClockState {
  now: string;
  frozen: boolean;
}
export interface ResetAnswer {
  reset: true;
  fixture: string;
}
export interface FixtureAnswer extends ResetAnswer {
  apiKey: string;
}
export interface ShapeAnswer {
  shape: Shape;
}
export interface FailNextCounts {
  pod: number;
  sandbox: number;
}
/** `GET /_emulator/capacity`: machines, CPU pools and the GPU settings still pending, in due order. */
export type CapacityState = CapacityReport;
/** A GPU setting's answer: the pool's machines after it; `scheduled` when it was given `afterSeconds`. */
export interface GpuCapacityAnswer {
  machines: Machine[];
  scheduled?: PendingCapacity;
}
export interface CpuCapacityAnswer {
  cpuPool: CpuPool;
}
export type CapacityAnswer = GpuCapacityAnswer | CpuCapacityAnswer;
export interface RequestsAnswer {
  requests: LoggedRequest[];
}
export interface EventAnswer {
  ok: true;
}
export interface ServiceEventsAnswer {
  events: ServiceEvent[];
}
export interface WorkersAnswer {
  endpointId: string;
  mode: WorkerMode;
  /** The override of `workerReadyMs`; null: each worker's timing. */
  delayMs: number | null;
}
/** `GET`/`PUT`/`DELETE /_emulator/pods/{id}/gpu-utilization`: the pod's setting and what it makes every GPU read now. */
export interface GpuUtilizationReport {
  podId: string;
  /** As it was set; null: the default, pseudo-random values. */
  setting: GpuUtilizationSpec | null;
  /** Emulator-clock instant it was set (a curve's `afterSeconds` count from it); null with no setting. */
  since: string | null;
  /** What every GPU reads now under it (in `runtime.gpus[].util` while the pod is RUNNING); null with no setting. */
  util: number | null;
}
export type { FaultRule, GpuUtilizationSpec, PendingCapacity, LoggedRequest, NextServices, PodServiceReport, ServiceEvent };
