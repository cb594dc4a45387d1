/** `/v2/pods`: list, create, get, PATCH, actions, delete and the log stream. */
import {
  CreatePodRequest,
  PodActionRequest,
  UpdatePodRequest,
  createPodCrossFieldViolations,
  updatePodCrossFieldViolations,
} from "../../contract";
import type { Services } from "../family";
import { json, noContent } from "../http";
import { streamReply } from "../logs/route";
import { readQuery } from "../query";
import { familyRoutes } from "../router";
import { profileOf } from "../shape";
import { checkUpdate, planCreate, type PodRulesWorld } from "./rules";
import type { Pods } from "./store";

/** What the pod routes use of the world. */
export interface PodRoutesWorld extends PodRulesWorld, Pick<Services, "logStreams" | "shape"> {
  readonly pods: Pods;
}

export const podRoutes = familyRoutes("pods", (route, world: PodRoutesWorld) => [
  route({
    method: "GET",
    path: "/v2/pods",
    handle: (op) => {
      const includeCluster = readQuery(op.query, (q) => q.boolean("includeClusterPods")) ?? false;
      return json(200, { pods: world.pods.list(op.account.id, op.now, includeCluster).map((p) => world.pods.view(p, op.now)) });
    },
  }),
  route({
    method: "POST",
    path: "/v2/pods",
    body: CreatePodRequest,
    crossField: (body) => createPodCrossFieldViolations(body),
    handle: (op) => {
      const plan = planCreate(world, op.account, op.body);
      return json(201, world.pods.view(world.pods.create(op.account, op.body.name, plan, op.now), op.now));
    },
  }),
  route({
    method: "GET",
    path: "/v2/pods/:id",
    handle: (op) => json(200, world.pods.view(world.pods.find(op.account.id, op.params.id, op.now), op.now)),
  }),
  route({
    method: "PATCH",
    path: "/v2/pods/:id",
    body: UpdatePodRequest,
    crossField: (body) => updatePodCrossFieldViolations(body),
    handle: (op) => {
      const pod = world.pods.mutable(op.account.id, op.params.id, op.now);
      const { template, mounts } = checkUpdate(world, op.account, pod, op.body, op.now);
      world.pods.update(pod, op.body, template, mounts, op.now);
      return json(200, world.pods.view(pod, op.now));
    },
  }),
  route({
    method: "POST",
    path: "/v2/pods/:id/action",
    body: PodActionRequest,
    handle: (op) => {
      const pod = world.pods.mutable(op.account.id, op.params.id, op.now);
      world.pods.act(pod, op.body.action, op.now);
      return op.body.action === "terminate" ? noContent() : json(200, world.pods.view(pod, op.now));
    },
  }),
  route({
    method: "DELETE",
    path: "/v2/pods/:id",
    handle: (op) => {
      world.pods.remove(world.pods.mutable(op.account.id, op.params.id, op.now), op.now);
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: "/v2/pods/:id/logs",
    // The answer shape in force frames the stream (the public shape: whole-second ids, no 409).
    handle: (op) =>
      streamReply(world.logStreams, op, () => world.pods.logSubject(world.pods.find(op.account.id, op.params.id, op.now)), profileOf(world.shape).podLogs),
  }),
]);
