/** The registries family: the account's container registry credentials, and their routes. */
import { defineFamily } from "../family";
import { registryRoutes } from "./routes";
import { Registries } from "./store";

export const registries = defineFamily({
  name: "registries",
  store: () => new Registries(),
  routes: registryRoutes,
  // Across accounts, with the password's SHA-256 only: a test can tell which secret was stored, never read it.
  state: (store) => ({
    registries: store.all().map(({ id, accountId, name, username, passwordSha256 }) => ({ id, accountId, name, username, passwordSha256 })),
  }),
});
