/** `/v2/serverless`: create, list, get, update (PATCH) and delete endpoints, and list an endpoint's workers. */
import { CreateEndpointRequest, UpdateEndpointRequest, createEndpointViolations, endpointCrossFieldViolations } from "../../contract";
import { json, noContent } from "../http";
import { randomId } from "../ids";
import { usableTemplate } from "../placement/rules";
import { familyRoutes } from "../router";
import type { Templates } from "../templates/store";
import { workerPlacement, type WorkerPlacementWorld } from "./placement";
import { duplicateCpuChoices, type EndpointRulesWorld } from "./rules";
import { endpointChange, newEndpoint } from "./settings";
import type { Serverless } from "./store";
import { endpointView, workersView } from "./view";

/** What the endpoint routes use of the world. */
export interface EndpointRoutesWorld extends EndpointRulesWorld, WorkerPlacementWorld {
  readonly templates: Templates;
  readonly serverless: Serverless;
}

export const serverlessRoutes = familyRoutes("serverless", (route, world: EndpointRoutesWorld) => [
  route({
    method: "GET",
    path: "/v2/serverless",
    handle: (op) => json(200, { endpoints: world.serverless.all().filter((e) => e.accountId === op.account.id).map(endpointView) }),
  }),
  route({
    method: "POST",
    path: "/v2/serverless",
    body: CreateEndpointRequest,
    violations: (raw) => [...createEndpointViolations(raw), ...duplicateCpuChoices(raw)],
    crossField: (body) => endpointCrossFieldViolations(body, "create"),
    handle: (op) => {
      const { body, account, now } = op;
      const template = usableTemplate(world.templates, account.id, body.templateId, "endpoint");
      const endpoint = world.serverless.add({ id: randomId(8), ...newEndpoint(world, account.id, body, template, now) }, now);
      return json(201, endpointView(endpoint));
    },
  }),
  route({
    method: "GET",
    path: "/v2/serverless/:id",
    handle: (op) => json(200, endpointView(world.serverless.find(op.account.id, op.params.id))),
  }),
  route({
    method: "PATCH",
    path: "/v2/serverless/:id",
    body: UpdateEndpointRequest,
    violations: duplicateCpuChoices,
    crossField: (body) => endpointCrossFieldViolations(body, "update"),
    handle: (op) => {
      const endpoint = world.serverless.find(op.account.id, op.params.id);
      const template = usableTemplate(world.templates, op.account.id, op.body.templateId, "endpoint");
      world.serverless.update(endpoint, endpointChange(world, endpoint, op.body, template), op.now);
      return json(200, endpointView(endpoint));
    },
  }),
  route({
    method: "GET",
    path: "/v2/serverless/:id/workers",
    handle: (op) => {
      const endpoint = world.serverless.find(op.account.id, op.params.id);
      return json(200, workersView(endpoint, workerPlacement(world, endpoint), op.now));
    },
  }),
  route({
    method: "DELETE",
    path: "/v2/serverless/:id",
    handle: (op) => {
      world.serverless.delete(world.serverless.find(op.account.id, op.params.id), op.now);
      return noContent();
    },
  }),
]);
