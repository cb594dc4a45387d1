/** Sandbox wire shapes (create/get/extend are the contract decisions; list/PATCH/logs the v2 document). */
import { z } from "zod";
import { dateTime, portSpec, stringMap } from "./common";
import { orNull, tolerantList, withDefault } from "./reading";

export const SandboxState = z.enum(["CREATING", "RUNNING", "TERMINATED", "FAILED"]);
export type SandboxState = z.infer<typeof SandboxState>;

/**
 * The sandbox states after which a sandbox can never run again and bills no more (a FAILED
 * sandbox still lists, as the account's clutter, until it is deleted).
 */
export const SANDBOX_ENDED_STATES: ReadonlySet<SandboxState> = new Set(["TERMINATED", "FAILED"]);

export const TerminationReason = z.enum([
  "USER_REQUESTED",
  "IDLE_TIMEOUT",
  "MAX_LIFETIME",
  "START_FAILED",
  "CONTAINER_EXITED",
]);
export type TerminationReason = z.infer<typeof TerminationReason>;

export const EgressMode = z.enum(["ALLOW_ALL", "DENY_ALL", "ALLOW_LIST"]);
export const LABEL_KEY = /^[A-Za-z0-9._/-]{1,63}$/;
/** What `LABEL_KEY` allows, as the violation's rule. */
export const LABEL_KEY_RULE = "must be 1-63 letters, digits, '-', '_', '.' or '/'";
export const MAX_LABELS = 64;
export const DEFAULT_IDLE_TIMEOUT_SECONDS = 600;
export const MIN_IDLE_TIMEOUT_SECONDS = 90;
export const DEFAULT_MAX_LIFETIME_SECONDS = 3600;
export const MIN_MAX_LIFETIME_SECONDS = 300;

const labels = z
  .record(
    z.string().regex(LABEL_KEY, { message: LABEL_KEY_RULE }),
    z.string(),
  )
  .refine((value) => Object.keys(value).length <= MAX_LABELS, { message: `must have at most ${MAX_LABELS} labels` });

export const EgressPolicy = z
  .strictObject({ mode: EgressMode.optional(), allow: z.array(z.string()).optional() })
  .superRefine((policy, ctx) => {
    const allow = policy.allow ?? [];
    if ((policy.mode ?? "ALLOW_ALL") === "ALLOW_LIST") {
      if (allow.length === 0) ctx.addIssue({ code: "custom", path: ["allow"], message: "must not be empty when mode is ALLOW_LIST" });
    } else if (allow.length > 0) {
      ctx.addIssue({ code: "custom", path: ["allow"], message: "must be empty unless mode is ALLOW_LIST" });
    }
  });

export const SandboxCompute = z.strictObject({
  vcpuCount: z.int().min(1),
  memoryInGb: z.number().min(1),
  containerDiskInGb: z.int().min(1),
});

export const CreateSandboxRequest = z.strictObject({
  name: z.string().min(1),
  image: z.string().min(1).optional(),
  templateId: z.string().min(1).optional(),
  compute: SandboxCompute,
  dataCenterIds: z.array(z.string()).optional(),
  ports: z.array(portSpec).optional(),
  env: stringMap.optional(),
  egressPolicy: EgressPolicy.optional(),
  idleTimeoutSeconds: z.int().optional(),
  maxLifetimeSeconds: z.int().min(MIN_MAX_LIFETIME_SECONDS).optional(),
  labels: labels.optional(),
});
export type CreateSandboxRequest = z.infer<typeof CreateSandboxRequest>;

/** Rules of create that are not one field's shape (still 422, per the contract decisions). */
export function createSandboxViolations(request: CreateSandboxRequest, accountMaxLifetimeSeconds?: number): string[] {
  const out: string[] = [];
  if (request.image === undefined && request.templateId === undefined) out.push("image: is required unless templateId is set");
  if (
    accountMaxLifetimeSeconds !== undefined &&
    request.maxLifetimeSeconds !== undefined &&
    request.maxLifetimeSeconds > accountMaxLifetimeSeconds
  ) {
    out.push(`maxLifetimeSeconds: must be <= ${accountMaxLifetimeSeconds} (the account maximum)`);
  }
  return out;
}

export const UpdateSandboxRequest = z.strictObject({ idleTimeoutSeconds: z.int() });
export const ExtendSandboxRequest = z.strictObject({ maxLifetimeSeconds: z.int() });

/**
 * The Sandbox response (the public OpenAPI has no sandboxes: the seed and the decisions only),
 * read tolerantly (reading.ts): nullable facts read as null when absent, `ports`/`labels` and
 * the egress policy take their create defaults. An unknown `state` makes the sandbox
 * unreadable (the provider decides on it), and a list sets it aside rather than failing.
 */
export const Sandbox = z.looseObject({
  id: z.string(),
  name: z.string(),
  state: SandboxState,
  templateId: orNull(z.string()),
  image: z.string(),
  dataCenterId: z.string(),
  compute: z.looseObject({
    vcpuCount: z.number(),
    memoryInGb: z.number(),
    containerDiskInGb: z.number(),
    costPerHr: z.number(),
  }),
  ports: withDefault(z.array(z.string()), () => []),
  egressPolicy: withDefault(
    z.looseObject({ mode: withDefault(z.string(), () => "ALLOW_ALL"), allow: withDefault(z.array(z.string()), () => []) }),
    () => ({ mode: "ALLOW_ALL", allow: [] }),
  ),
  idleTimeoutSeconds: z.int(),
  maxLifetimeSeconds: z.int(),
  lastActivityAt: dateTime,
  idleExpiresAt: dateTime,
  expiresAt: dateTime,
  labels: withDefault(stringMap, () => ({})),
  startedAt: orNull(dateTime),
  terminationReason: orNull(z.string()),
  terminatedAt: orNull(dateTime),
  createdAt: dateTime,
  updatedAt: dateTime,
});
export type Sandbox = z.output<typeof Sandbox>;

export const ListSandboxesResponse = tolerantList("sandboxes", Sandbox);
