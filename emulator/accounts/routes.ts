/** `/v2/account/ssh-keys`: the keys `startSsh` injects as PUBLIC_KEY. */
import { UpdateSshKeysRequest } from "../../contract";
import { json } from "../http";
import { familyRoutes } from "../router";
import { sshKeyViolations } from "./rules";
import type { Accounts } from "./store";

export const accountRoutes = familyRoutes("account", (route, world: { readonly accounts: Accounts }) => [
  route({
    method: "GET",
    path: "/v2/account/ssh-keys",
    handle: (op) => json(200, { keys: op.account.sshKeys }),
  }),
  route({
    method: "PUT",
    path: "/v2/account/ssh-keys",
    body: UpdateSshKeysRequest,
    violations: sshKeyViolations,
    handle: (op) => {
      world.accounts.setSshKeys(op.account, op.body.keys);
      return json(200, { keys: op.account.sshKeys });
    },
  }),
]);
