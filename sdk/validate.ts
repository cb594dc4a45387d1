/**
 * Client-side validation: the contract's rules checked before a request is sent, every
 * violation reported at once with its field path. Catching these here (and at `pulumi
 * preview`) saves a round trip and never spends quota on a request that cannot succeed.
 */
import { ValidationError } from "./errors";
import {
  CreatePodRequest,
  CreateSandboxRequest,
  MAX_BODY_BYTES,
  UpdatePodRequest,
  createPodCrossFieldViolations,
  createSandboxViolations,
  parseWire,
  updatePodCrossFieldViolations,
} from "./schemas";

function sizeViolation(body: unknown): string[] {
  const bytes = Buffer.byteLength(JSON.stringify(body) ?? "", "utf8");
  return bytes > MAX_BODY_BYTES ? [`(body): must be at most ${MAX_BODY_BYTES} bytes as JSON (is ${bytes})`] : [];
}

/** Every 422 rule (shape), 400 rule (cross-field) and the 413 size limit of pod create. */
export function createPodViolations(input: unknown): string[] {
  const parsed = parseWire(CreatePodRequest, input);
  if (!parsed.ok) return [...parsed.violations, ...sizeViolation(input)];
  return [...createPodCrossFieldViolations(parsed.value), ...sizeViolation(input)];
}

export function updatePodViolations(input: unknown): string[] {
  const parsed = parseWire(UpdatePodRequest, input);
  if (!parsed.ok) return parsed.violations;
  return updatePodCrossFieldViolations(parsed.value);
}

export function createSandboxRequestViolations(input: unknown): string[] {
  const parsed = parseWire(CreateSandboxRequest, input);
  if (!parsed.ok) return parsed.violations;
  return createSandboxViolations(parsed.value);
}

export function assertValid<T>(what: string, input: T, violations: string[]): T {
  if (violations.length > 0) throw new ValidationError(what, violations);
  return input;
}
