/**
 * The control plane's wire: request schemas (checked by the gateway, 400 with every violation)
 * and the answers' types. `EmulatorControl` (control-client.ts) takes its types from here, so the
 * client and the server cannot drift apart.
 */
import { z } from "zod";
import { MIN_IDLE_TIMEOUT_SECONDS, MIN_MAX_LIFETIME_SECONDS } from "../../contract";
import { FaultInput, type FaultRule } from "../faults";
import { MachineFixture } from "../fixture";
import { TIMING_KEYS, type Timings } from "../options";
import type { CapacitySlice, CpuPool, Machine } from "../placement/capacity";
import { SERVICE_MODES } from "../pods/record";
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
});
export const CpuCapacityRequest = z.strictObject({ dataCenterId: z.string(), cpuFlavorId: z.string(), available: z.int().min(0) });

/** A CPU pool is named by `cpuFlavorId`; anything else is read as a GPU pool. */
export const CapacityRequest = z.unknown().transform((body, ctx) => {
  const isCpu = typeof body === "object" && body !== null && "cpuFlavorId" in body;
  const parsed = isCpu ? CpuCapacityRequest.safeParse(body) : GpuCapacityRequest.safeParse(body);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path, input: body });
    return z.NEVER;
  }
  return isCpu ? { cpu: parsed.data as CpuCapacityRequest } : { gpu: parsed.data as GpuCapacityRequest };
});

export const ShapeRequest = z.strictObject({ shape: z.enum(SHAPES) });

export const FailNextRequest = z.strictObject({ kind: z.enum(["pod", "sandbox"]), count: z.int().min(0).default(1) });
export const PodErrorRequest = z.strictObject({ message: z.string().optional() });

/** PUT /_emulator/pods/{id}/service: how the pod's services behave; `delayMs` (from RUNNING) replaces `serviceStartMs`. */
export const ServiceRequest = z.strictObject({ mode: z.enum(SERVICE_MODES), delayMs: z.number().min(0).optional() });
/** PUT /_emulator/services/next: the same settings for the next `count` pods created. */
export const NextServicesRequest = z.strictObject({ mode: z.enum(SERVICE_MODES), delayMs: z.number().min(0).optional(), count: z.int().min(0).default(1) });
/** PUT /_emulator/serverless/{id}/workers: how the endpoint's workers behave; `delayMs` (from each worker's start) replaces `workerReadyMs`. */
export const WorkersRequest = z.strictObject({ mode: z.enum(WORKER_MODES), delayMs: z.number().min(0).optional() });

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
export type CapacityState = CapacitySlice;
export type CapacityAnswer = { machines: Machine[] } | { cpuPool: CpuPool };
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
export type { FaultRule, LoggedRequest, NextServices, PodServiceReport, ServiceEvent };
