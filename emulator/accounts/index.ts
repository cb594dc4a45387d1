/** The accounts family: users, accounts, keys and sessions, and the account's SSH-key routes. */
import { defineFamily } from "../family";
import { accountRoutes } from "./routes";
import { Accounts } from "./store";

export const accounts = defineFamily({
  name: "accounts",
  store: () => new Accounts(),
  routes: accountRoutes,
  state: (store) => ({ accounts: store.records.all() }),
});
