/** `GET /v2/hub/repos` (search, filters, ordering, paging) and one repository by id or owner/name. */
import { HubListQuery, parseWire } from "../../contract";
import { json, unprocessable } from "../http";
import { familyRoutes } from "../router";
import type { Hub } from "./store";

export const hubRoutes = familyRoutes("hub", (route, { hub }: { readonly hub: Hub }) => [
  route({
    method: "GET",
    path: "/v2/hub/repos",
    handle: (op) => {
      const parsed = parseWire(HubListQuery, Object.fromEntries(op.query));
      if (!parsed.ok) throw unprocessable("The query string is not valid", parsed.violations);
      return json(200, { repos: hub.list(parsed.value) });
    },
  }),
  route({
    method: "GET",
    path: "/v2/hub/repos/:id",
    handle: (op) => json(200, hub.byId(op.params.id)),
  }),
  route({
    method: "GET",
    path: "/v2/hub/repos/:owner/:name",
    handle: (op) => json(200, hub.byName(op.params.owner, op.params.name)),
  }),
]);
