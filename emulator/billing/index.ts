/**
 * The billing family: the meter every billed family writes its uses to, and the six billing
 * routes that read it. Registered before the families that bill (families.ts), so their stores
 * can write to it.
 */
import { defineFamily } from "../family";
import { Meter } from "./meter";
import { billingRoutes } from "./routes";

export const billing = defineFamily({
  name: "billing",
  store: () => new Meter(),
  routes: billingRoutes,
});
