/** The sandboxes family: its store, its routes and its part of the control plane's state. */
import { defineFamily } from "../family";
import { sandboxRoutes } from "./routes";
import { Sandboxes } from "./store";
import { sandboxView } from "./view";

export const sandboxes = defineFamily({
  name: "sandboxes",
  store: () => new Sandboxes(),
  routes: sandboxRoutes,
  state: (store, now) => ({ sandboxes: store.all().map((sb) => ({ accountId: sb.accountId, ...sandboxView(store, sb, now) })) }),
});
