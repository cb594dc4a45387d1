/** The pods family: its store, its routes and its part of the control plane's state. */
import { defineFamily } from "../family";
import { podRoutes } from "./routes";
import { Pods, type PodsWorld } from "./store";

export const pods = defineFamily({
  name: "pods",
  store: (world: PodsWorld) => new Pods(world),
  routes: podRoutes,
  state: (store, now) => ({ pods: store.live(now).map((p) => ({ accountId: p.accountId, ...store.view(p, now) })) }),
});
