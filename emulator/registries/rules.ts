/**
 * Which records still use a registry credential, so that deleting it is refused (409, decision
 * 33) instead of leaving them pointing at nothing: the account's own templates, its live pods
 * and its serverless endpoints, each by its `registry` member. Each store answers for its own
 * records, through the small interfaces below (this family imports none of theirs).
 */
import { conflict } from "../http";
import type { RegistryRecord } from "./store";

/** What the registry rules read of the world. */
export interface RegistryRulesWorld {
  readonly templates: { templatesUsingRegistry(accountId: string, registryId: string): string[] };
  readonly pods: { podsUsingRegistry(accountId: string, registryId: string, now: number): string[] };
  readonly serverless: { endpointsUsingRegistry(accountId: string, registryId: string): string[] };
}

/** A credential still referenced cannot be deleted (409): the detail names every referrer, so the user knows what to change first. */
export function checkDeletable(world: RegistryRulesWorld, registry: RegistryRecord, now: number): void {
  const referrers = [
    named("template", world.templates.templatesUsingRegistry(registry.accountId, registry.id)),
    named("pod", world.pods.podsUsingRegistry(registry.accountId, registry.id, now)),
    named("serverless endpoint", world.serverless.endpointsUsingRegistry(registry.accountId, registry.id)),
  ].filter((part) => part !== undefined);
  if (referrers.length === 0) return;
  throw conflict(
    `Registry credential ${registry.id} is in use by ${referrers.join(", ")}; point their registry elsewhere (or delete them) first`,
  );
}

/** "template tpl_a", "pods p1, p2"; undefined for none. */
function named(noun: string, ids: string[]): string | undefined {
  if (ids.length === 0) return undefined;
  return `${noun}${ids.length > 1 ? "s" : ""} ${ids.join(", ")}`;
}
