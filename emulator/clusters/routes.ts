/** `/v2/clusters`: list, create, get, rename, delete, and the member pods. */
import { CreateClusterRequest, UpdateClusterRequest } from "../../contract";
import { json, noContent } from "../http";
import type { Pods } from "../pods/store";
import { familyRoutes } from "../router";
import { createViolations, planCluster, type ClusterRulesWorld } from "./rules";
import type { ClusterRecord, Clusters } from "./store";
import { byRank, clusterView } from "./view";

/** What the cluster routes use of the world. */
export interface ClusterRoutesWorld extends ClusterRulesWorld {
  readonly clusters: Clusters;
  readonly pods: Pods;
}

export const clusterRoutes = familyRoutes("clusters", (route, world: ClusterRoutesWorld) => {
  const view = (cluster: ClusterRecord, now: number) => clusterView(cluster, world.clusters.members(cluster, now), now, (pod) => world.pods.view(pod, now));
  return [
    route({
      method: "GET",
      path: "/v2/clusters",
      handle: (op) => json(200, { clusters: world.clusters.list(op.account.id).map((c) => view(c, op.now)) }),
    }),
    route({
      method: "POST",
      path: "/v2/clusters",
      body: CreateClusterRequest,
      crossField: (body) => createViolations(world, body),
      handle: (op) => {
        const plan = planCluster(world, op.account, op.body);
        return json(201, view(world.clusters.create(op.account, op.body, plan, op.now), op.now));
      },
    }),
    route({
      method: "GET",
      path: "/v2/clusters/:id",
      handle: (op) => json(200, view(world.clusters.find(op.account.id, op.params.id), op.now)),
    }),
    route({
      method: "PATCH",
      path: "/v2/clusters/:id",
      // Strict: shape, type and compute are fixed at create, so anything but `name` is 422.
      body: UpdateClusterRequest,
      handle: (op) => {
        const cluster = world.clusters.find(op.account.id, op.params.id);
        world.clusters.rename(cluster, op.body.name);
        return json(200, view(cluster, op.now));
      },
    }),
    route({
      method: "DELETE",
      path: "/v2/clusters/:id",
      handle: (op) => {
        world.clusters.remove(world.clusters.find(op.account.id, op.params.id), op.now);
        return noContent();
      },
    }),
    route({
      method: "GET",
      path: "/v2/clusters/:id/pods",
      handle: (op) => {
        const cluster = world.clusters.find(op.account.id, op.params.id);
        return json(200, { pods: byRank(world.clusters.members(cluster, op.now), op.now).map((p) => world.pods.view(p, op.now)) });
      },
    }),
  ];
});
