/**
 * What a key is worth: does the service accept it. One cheap authenticated read (the data-center
 * list of the catalog, a few hundred bytes, the same for every account), asked once by whoever
 * needs to know before acting: the provider at the start of a run, the CLI on demand.
 *
 * A 403 is an answer about the key's scopes, not its validity: a key scoped to sandboxes only
 * is a good key for a stack of sandboxes, so it counts as accepted (the family's own calls then
 * say what the key lacks). A 5xx or 429 that outlasts the retries says nothing about the key
 * either: "unknown", and the run goes on to meet the same answer where it matters.
 */
import type { ComputeClient } from "./client";
import { AuthenticationError, ConnectionError, PermissionDeniedError, type ApiError } from "./errors";

export type KeyCheck = { verdict: "accepted" } | { verdict: "unknown"; error: Error } | { verdict: "refused"; error: ApiError } | { verdict: "unreachable"; error: ConnectionError };

export async function checkKey(client: ComputeClient): Promise<KeyCheck> {
  try {
    await client.catalog.dataCenters();
    return { verdict: "accepted" };
  } catch (error) {
    if (error instanceof AuthenticationError) return { verdict: "refused", error };
    if (error instanceof PermissionDeniedError) return { verdict: "accepted" };
    if (error instanceof ConnectionError) return { verdict: "unreachable", error };
    return { verdict: "unknown", error: error as Error };
  }
}
