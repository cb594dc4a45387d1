/**
 * What an account holds, of every kind the registry (provider/resources/index.ts) serves: each
 * definition's own SDK family lists it (`definition.family(api).page()`), keyed by
 * `definition.kind`. A new kind is read with no edit here, so a leak check built on it sees
 * leaks of every kind. The emulator's fixture holds objects of its own (account volumes and
 * SSH keys, public templates, a cluster): `added` leaves out what a snapshot taken before held.
 */
import { RESOURCES } from "../../provider/resources";
import { ComputeClient } from "../../sdk";

/** Ids by kind (`definition.kind`: `pod`, `network volume`, …); every registered kind is a key. */
export type IdsByKind = Record<string, string[]>;

/** Every registered kind, holding no id. */
export function noIds(): IdsByKind {
  return Object.fromEntries(RESOURCES.map((definition) => [definition.kind, [] as string[]]));
}

/** A client of one service address and key, reading nothing from the environment. */
export function clientOf(service: { url: string; apiKey: string }): ComputeClient {
  return new ComputeClient({ baseUrl: service.url, apiKey: service.apiKey, env: {}, maxRetries: 2 });
}

/**
 * The ids of every kind the account holds now, sorted (a pod family lists no cluster member:
 * the members are their cluster's). An object the list could not read (`setAside`) counts too.
 */
export async function listedIds(api: ComputeClient): Promise<IdsByKind> {
  const entries = await Promise.all(
    RESOURCES.map(async (definition) => {
      const { items, setAside } = await definition.family(api).page();
      const ids = [...items.map((live: { id: string }) => live.id), ...setAside.map((entry) => entry.id ?? `unreadable #${entry.index}`)];
      return [definition.kind, ids.sort()] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** What `now` holds that `before` did not, by kind (every kind of `now` a key). */
export function added(now: IdsByKind, before: IdsByKind): IdsByKind {
  return Object.fromEntries(Object.entries(now).map(([kind, ids]) => [kind, ids.filter((id) => !(before[kind] ?? []).includes(id))]));
}

/** How many ids `ids` holds in all. */
export function countOf(ids: IdsByKind): number {
  return Object.values(ids).reduce((sum, list) => sum + list.length, 0);
}

/**
 * The ids of the pods that belong to a cluster, sorted: no kind lists them (the pod family
 * leaves them to their cluster), yet a member left behind by a cluster's delete bills all the
 * same, so a check that nothing is left counts them too.
 */
export async function clusterMemberIds(api: ComputeClient): Promise<string[]> {
  const { items } = await api.pods.page({ includeClusterPods: true });
  return items
    .filter((pod) => pod.cluster)
    .map((pod) => pod.id)
    .sort();
}
