/** `/v2/serverless`: create, list, get, delete. */
import { CreateEndpointRequest, createEndpointViolations } from "../../contract";
import { json, noContent } from "../http";
import { randomId } from "../ids";
import type { World } from "../module";
import { usableTemplate } from "../placement/rules";
import { familyRoute, type Route } from "../router";
import { endpointCrossFieldViolations, gpuSelection } from "./rules";
import { endpointView } from "./view";

const route = familyRoute("serverless");

export function serverlessRoutes(world: World): Array<Route<unknown>> {
  const serverless = world.serverless;
  return [
    route({
      method: "GET",
      path: "/v2/serverless",
      handle: (op) => json(200, { endpoints: serverless.all().filter((e) => e.accountId === op.account.id).map((e) => e.view) }),
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
        serverless.add({ id, accountId: account.id, createdAt: now, view });
        return json(201, view);
      },
    }),
    route({
      method: "GET",
      path: "/v2/serverless/:id",
      handle: (op) => json(200, serverless.find(op.account.id, op.params.id).view),
    }),
    route({
      method: "DELETE",
      path: "/v2/serverless/:id",
      handle: (op) => {
        serverless.delete(serverless.find(op.account.id, op.params.id));
        return noContent();
      },
    }),
  ];
}
