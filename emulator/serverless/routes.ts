/** `/v2/serverless`: create, list, get, delete. */
import { CreateEndpointRequest, createEndpointViolations } from "../../contract";
import { json, noContent } from "../http";
import { randomId } from "../ids";
import { usableTemplate } from "../placement/rules";
import { familyRoutes } from "../router";
import type { Templates } from "../templates/store";
import { endpointCrossFieldViolations, gpuSelection, type EndpointRulesWorld } from "./rules";
import type { Serverless } from "./store";
import { endpointView } from "./view";

/** What the endpoint routes use of the world. */
export interface EndpointRoutesWorld extends EndpointRulesWorld {
  readonly templates: Templates;
  readonly serverless: Serverless;
}

export const serverlessRoutes = familyRoutes("serverless", (route, world: EndpointRoutesWorld) => [
  route({
    method: "GET",
    path: "/v2/serverless",
    handle: (op) => json(200, { endpoints: world.serverless.all().filter((e) => e.accountId === op.account.id).map((e) => e.view) }),
  }),
  route({
    method: "POST",
    path: "/v2/serverless",
    body: CreateEndpointRequest,
    violations: createEndpointViolations,
    crossField: endpointCrossFieldViolations,
    handle: (op) => {
      const { body, account, now } = op;
      const template = usableTemplate(world.templates, account.id, body.templateId, "endpoint");
      const selection = gpuSelection(world, account.id, body);
      const id = randomId(8);
      const view = endpointView(id, body, template, selection, now);
      world.serverless.add({ id, accountId: account.id, createdAt: now, view });
      return json(201, view);
    },
  }),
  route({
    method: "GET",
    path: "/v2/serverless/:id",
    handle: (op) => json(200, world.serverless.find(op.account.id, op.params.id).view),
  }),
  route({
    method: "DELETE",
    path: "/v2/serverless/:id",
    handle: (op) => {
      world.serverless.delete(world.serverless.find(op.account.id, op.params.id));
      return noContent();
    },
  }),
]);
