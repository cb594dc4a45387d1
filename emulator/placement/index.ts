/**
 * Capacity, registered as a family of its own: what is free has a slice of the state file and is
 * reset after the catalog it belongs to and before the pods that hold it. It has no API routes:
 * the catalog reads it, placement takes from it, the control plane sets it.
 */
import type { Catalog } from "../catalog/store";
import { defineFamily } from "../family";
import { Capacity } from "./capacity";

export const capacity = defineFamily({
  name: "capacity",
  store: (world: { readonly catalog: Catalog }) => new Capacity(world.catalog),
  state: (store) => ({ capacity: store.state() }),
});
