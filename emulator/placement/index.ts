/**
 * Capacity, registered as a family of its own: what is free has a slice of the state file and is
 * reset after the catalog it belongs to and before the pods that hold it. It has no API routes:
 * the catalog reads it, placement takes from it, the control plane sets it (now, or when the
 * emulator clock reaches a given instant: the clock is what scheduled settings are reckoned by).
 */
import type { Catalog } from "../catalog/store";
import type { Clock } from "../clock";
import { defineFamily } from "../family";
import { Capacity } from "./capacity";

export const capacity = defineFamily({
  name: "capacity",
  store: (world: { readonly catalog: Catalog; readonly clock: Clock }) => new Capacity(world.catalog, world.clock),
  state: (store, now) => ({ capacity: store.state(now) }),
});
