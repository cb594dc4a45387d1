/**
 * Deleting a registry credential (public OpenAPI `deleteRegistry`, decision 33): refused with
 * **400** while a live pod uses it to pull its image (and, by the same reasoning, an endpoint,
 * whose workers pull as they start); the account's templates that name it are no part of that
 * check: they silently lose the reference (`registry` becomes null). Each store answers for its
 * own records, through the small interfaces below (this family imports none of theirs).
 */
import { badRequest } from "../http";
import type { RegistryRecord } from "./store";

/** What the registry rules read of the world, and the one thing they change: templates' references. */
export interface RegistryRulesWorld {
  readonly templates: { templatesUsingRegistry(accountId: string, registryId: string): string[]; dropRegistry(accountId: string, registryId: string): void };
  readonly pods: { podsUsingRegistry(accountId: string, registryId: string, now: number): string[] };
  readonly serverless: { endpointsUsingRegistry(accountId: string, registryId: string): string[] };
}

/** A credential a pod or an endpoint still pulls with cannot be deleted (400); the detail names every one. */
export function checkDeletable(world: RegistryRulesWorld, registry: RegistryRecord, now: number): void {
  const pullers = [
    named("pod", world.pods.podsUsingRegistry(registry.accountId, registry.id, now)),
    named("serverless endpoint", world.serverless.endpointsUsingRegistry(registry.accountId, registry.id)),
  ].filter((part) => part !== undefined);
  if (pullers.length === 0) return;
  throw badRequest(`Registry credential ${registry.id} is in use by ${pullers.join(", ")}; point their registry elsewhere (or delete them) first`);
}

/** After the delete: the account's templates that named it no longer do (public OpenAPI). */
export function releaseTemplates(world: RegistryRulesWorld, registry: RegistryRecord): void {
  world.templates.dropRegistry(registry.accountId, registry.id);
}

/** "pod p1", "pods p1, p2"; undefined for none. */
function named(noun: string, ids: string[]): string | undefined {
  if (ids.length === 0) return undefined;
  return `${noun}${ids.length > 1 ? "s" : ""} ${ids.join(", ")}`;
}
