/** `/v2/templates` (own, full CRUD) and `/v2/catalog/templates` (public, by source). */
import { CreateTemplateRequest, UpdateTemplateRequest, storedArgs, type CommandFields } from "../../contract";
import { json, noContent } from "../http";
import { readQuery } from "../query";
import { familyRoute, familyRoutes } from "../router";
import type { Templates } from "./store";
import { templateView } from "./view";

const commandConflict = (body: CommandFields): string[] => {
  const conflict = storedArgs(body).conflict;
  return conflict ? [conflict] : [];
};

const catalogRoute = familyRoute("catalog");

export const templateRoutes = familyRoutes("templates", (route, { templates }: { readonly templates: Templates }) => [
  catalogRoute({
    method: "GET",
    path: "/v2/catalog/templates",
    handle: (op) => {
      const source = readQuery(op.query, (q) => q.enumValue("source", ["official", "verified", "community"] as const)) ?? "official";
      const list = templates
        .all()
        .filter((t) => t.public && (t.source ?? "community") === source)
        .slice(0, 100)
        .map((t) => templateView(t, op.account.id));
      return json(200, { templates: list });
    },
  }),
  route({
    method: "GET",
    path: "/v2/templates",
    handle: (op) =>
      json(200, {
        templates: templates
          .all()
          .filter((t) => t.accountId === op.account.id)
          .map((t) => templateView(t, op.account.id)),
      }),
  }),
  route({
    method: "GET",
    path: "/v2/templates/:id",
    handle: (op) => json(200, templateView(templates.resolve(op.account.id, op.params.id), op.account.id)),
  }),
  route({
    method: "POST",
    path: "/v2/templates",
    body: CreateTemplateRequest,
    crossField: (body) => commandConflict(body),
    handle: (op) => json(201, templateView(templates.create(op.account.id, op.body), op.account.id)),
  }),
  route({
    method: "PATCH",
    path: "/v2/templates/:id",
    body: UpdateTemplateRequest,
    crossField: (body) => commandConflict(body),
    handle: (op) => {
      const template = templates.own(op.account.id, op.params.id);
      templates.update(template, op.body);
      return json(200, templateView(template, op.account.id));
    },
  }),
  route({
    method: "DELETE",
    path: "/v2/templates/:id",
    handle: (op) => {
      templates.delete(templates.own(op.account.id, op.params.id));
      return noContent();
    },
  }),
]);
