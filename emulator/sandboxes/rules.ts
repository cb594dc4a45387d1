/**
 * The sandbox rules that need the world's data: the template, the data center (the first
 * candidate whose CPU pools have room; nothing is reserved), the price and the balance (402),
 * and the account's maxima for idle timeouts and lifetimes.
 */
import { MIN_IDLE_TIMEOUT_SECONDS, type CreateSandboxRequest } from "../../contract";
import { sandboxCostPerHour } from "../../contract/estimate";
import type { AccountRecord } from "../accounts/store";
import type { Catalog } from "../catalog/store";
import { badRequest, unprocessable } from "../http";
import type { Capacity } from "../placement/capacity";
import { candidateDataCenters, checkBalance, usableTemplate } from "../placement/rules";
import type { TemplateRecord, Templates } from "../templates/store";

/** What the sandbox rules read of the world. */
export interface SandboxRulesWorld {
  readonly catalog: Catalog;
  readonly capacity: Capacity;
  readonly templates: Templates;
}

/** POST /v2/sandboxes, in order: template (404/422), data centers (400), capacity (400), balance (402). */
export function placeSandbox(world: SandboxRulesWorld, account: AccountRecord, body: CreateSandboxRequest): { template?: TemplateRecord; dataCenterId: string; costPerHr: number } {
  const template = usableTemplate(world.templates, account.id, body.templateId, "sandbox");
  const candidates = candidateDataCenters(world.catalog, body.dataCenterIds);
  const dataCenterId = candidates.find((id) => world.capacity.hasCpuRoom(id, body.compute.vcpuCount));
  if (!dataCenterId) {
    throw badRequest(`There is no capacity for a ${body.compute.vcpuCount}-vCPU sandbox in ${candidates.join(", ")} right now. Try another data center.`);
  }
  const costPerHr = sandboxCostPerHour(body.compute);
  checkBalance(account, costPerHr, "sandbox");
  return { template, dataCenterId, costPerHr };
}

/** Idle timeouts are clamped into [MIN_IDLE_TIMEOUT_SECONDS, the account maximum], not refused. */
export function clampIdle(seconds: number, account: AccountRecord): number {
  return Math.min(Math.max(seconds, MIN_IDLE_TIMEOUT_SECONDS), account.maxIdleTimeoutSeconds);
}

/** An extension must lengthen the lifetime and stay within the account maximum (422, both listed). */
export function checkExtension(wanted: number, current: number, account: AccountRecord): void {
  const violations: string[] = [];
  if (wanted <= current) violations.push(`maxLifetimeSeconds: must be larger than the current ${current}`);
  if (wanted > account.maxLifetimeSeconds) violations.push(`maxLifetimeSeconds: must be <= ${account.maxLifetimeSeconds} (the account maximum)`);
  if (violations.length > 0) throw unprocessable("The new lifetime cannot be applied", violations);
}
