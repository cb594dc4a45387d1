/** `/v2/registries`: list, create, get and delete the account's registry credentials (no update: a changed credential is a new one). */
import { CreateRegistryRequest } from "../../contract";
import { json, noContent } from "../http";
import { familyRoutes } from "../router";
import { checkDeletable, releaseTemplates, type RegistryRulesWorld } from "./rules";
import type { Registries } from "./store";
import { registryView } from "./view";

/** What the registry routes use of the world. */
export interface RegistryRoutesWorld extends RegistryRulesWorld {
  readonly registries: Registries;
}

export const registryRoutes = familyRoutes("registries", (route, world: RegistryRoutesWorld) => [
  route({
    method: "GET",
    path: "/v2/registries",
    handle: (op) =>
      json(200, {
        registries: world.registries
          .all()
          .filter((r) => r.accountId === op.account.id)
          .map(registryView),
      }),
  }),
  route({
    method: "POST",
    path: "/v2/registries",
    body: CreateRegistryRequest,
    handle: (op) => json(201, registryView(world.registries.create(op.account.id, op.body))),
  }),
  route({
    method: "GET",
    path: "/v2/registries/:id",
    handle: (op) => json(200, registryView(world.registries.own(op.account.id, op.params.id))),
  }),
  route({
    method: "DELETE",
    path: "/v2/registries/:id",
    handle: (op) => {
      const registry = world.registries.own(op.account.id, op.params.id);
      checkDeletable(world, registry, op.now);
      world.registries.delete(registry);
      releaseTemplates(world, registry);
      return noContent();
    },
  }),
]);
