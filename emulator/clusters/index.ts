/** The clusters family: multi-node clusters whose members are pods of the pods family, and their routes. */
import { defineFamily } from "../family";
import { clusterRoutes } from "./routes";
import { Clusters, type ClustersWorld } from "./store";
import { clusterView } from "./view";

export const clusters = defineFamily({
  name: "clusters",
  store: (world: ClustersWorld) => new Clusters(world),
  routes: clusterRoutes,
  state: (store, now) => ({ clusters: store.all().map((c) => ({ accountId: c.accountId, ...clusterView(c, store.members(c, now), now, (pod) => store.memberView(pod, now)) })) }),
});
