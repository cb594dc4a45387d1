/** The Hub family: read-only repositories from the fixture, and their routes. */
import { defineFamily } from "../family";
import { hubRoutes } from "./routes";
import { Hub } from "./store";

export const hub = defineFamily({
  name: "hub",
  store: () => new Hub(),
  routes: hubRoutes,
});
