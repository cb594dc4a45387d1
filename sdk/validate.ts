/**
 * Client-side validation: the contract's rules checked before a request is sent, every
 * violation reported at once with its field path. Catching these here (and at `pulumi
 * preview`) saves a round trip and never spends quota on a request that cannot succeed.
 * Rules that need the service's data (catalog, templates, volumes, the account) are not here:
 * docs/provider.md ("Rules checked at preview") lists which rules are judged where.
 */
import type { z } from "zod";
import { ValidationError } from "./errors";
import { POD_OWNER_ENV, SANDBOX_OWNER_LABEL } from "./ownership";
import {
  CreateClusterRequest,
  CreatePodRequest,
  CreateSandboxRequest,
  MAX_BODY_BYTES,
  MAX_LABELS,
  UpdatePodRequest,
  clusterCreateViolations,
  createPodCrossFieldViolations,
  createSandboxViolations,
  parseWire,
  updatePodCrossFieldViolations,
} from "../contract";

function sizeViolation(body: unknown): string[] {
  const bytes = Buffer.byteLength(JSON.stringify(body) ?? "", "utf8");
  return bytes > MAX_BODY_BYTES ? [`(body): must be at most ${MAX_BODY_BYTES} bytes as JSON (is ${bytes})`] : [];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The shape violations, plus the cross-field ones judged on the members that are valid: the
 * service answers 422 before it looks at its 400 rules, but a user fixing inputs wants both
 * lists in one preview.
 */
function withCrossField<T>(
  schema: z.ZodType<T>,
  input: unknown,
  crossField: (request: T, invalid: ReadonlySet<string>) => string[],
): string[] {
  const parsed = parseWire(schema, input);
  if (parsed.ok) return crossField(parsed.value, new Set());
  if (!isRecord(input)) return parsed.violations;
  const issues = schema.safeParse(input).error?.issues ?? [];
  const invalid = new Set<string>();
  for (const issue of issues) {
    if (issue.path.length > 0) invalid.add(String(issue.path[0]));
    else if (issue.code === "unrecognized_keys") for (const key of issue.keys) invalid.add(key);
    else return parsed.violations; // the object as a whole is wrong: no member can be trusted
  }
  const valid = Object.fromEntries(Object.entries(input).filter(([key]) => !invalid.has(key))) as T;
  return [...parsed.violations, ...crossField(valid, invalid)];
}

/** Every 422 rule (shape), 400 rule (cross-field) and the 413 size limit of pod create. */
export function createPodViolations(input: unknown): string[] {
  return [...withCrossField(CreatePodRequest, input, createPodCrossFieldViolations), ...sizeViolation(input)];
}

export function updatePodViolations(input: unknown): string[] {
  return withCrossField(UpdatePodRequest, input, updatePodCrossFieldViolations);
}

/**
 * Cluster create: every 422 rule (shape) and the 400 rules that need no catalog. With
 * `imageFromTemplate` the image is left to the template the caller spreads in (decision 37).
 */
export function createClusterRequestViolations(input: unknown, options: { imageFromTemplate?: boolean } = {}): string[] {
  const skipped = options.imageFromTemplate ? ["image"] : [];
  return withCrossField(CreateClusterRequest, input, (request, invalid) => clusterCreateViolations(request, new Set([...invalid, ...skipped])));
}

/** Sandbox create: its non-shape rules are 422 too and read the raw body, as the service does. */
export function createSandboxRequestViolations(input: unknown): string[] {
  const parsed = parseWire(CreateSandboxRequest, input);
  if (parsed.ok) return createSandboxViolations(parsed.value);
  return [...parsed.violations, ...(isRecord(input) ? createSandboxViolations(input as CreateSandboxRequest) : [])];
}

/**
 * Rules of the provider's sandbox inputs: the provider adds its owner label
 * (`SANDBOX_OWNER_LABEL`) to every sandbox it creates, so the user's labels must leave room for
 * it and must not use its key. The wire request's own rule (at most `MAX_LABELS`) stays in
 * `createSandboxRequestViolations`, which is right for SDK users who send their labels as is.
 */
export function reservedLabelViolations(labels: unknown): string[] {
  if (!isRecord(labels)) return [];
  const out: string[] = [];
  if (SANDBOX_OWNER_LABEL in labels) {
    out.push(`labels.${SANDBOX_OWNER_LABEL}: is reserved: the provider writes the sandbox's owner mark there`);
  }
  const room = MAX_LABELS - 1;
  if (Object.keys(labels).length > room) {
    out.push(`labels: must have at most ${room} labels (the provider adds ${SANDBOX_OWNER_LABEL}, and a sandbox carries at most ${MAX_LABELS})`);
  }
  return out;
}

/** The same for pods: the provider writes its owner mark into the env variable `POD_OWNER_ENV`. */
export function reservedEnvViolations(env: unknown): string[] {
  if (!isRecord(env) || !(POD_OWNER_ENV in env)) return [];
  return [`env.${POD_OWNER_ENV}: is reserved: the provider writes the pod's owner mark there`];
}

export function assertValid<T>(what: string, input: T, violations: string[]): T {
  if (violations.length > 0) throw new ValidationError(what, violations);
  return input;
}
