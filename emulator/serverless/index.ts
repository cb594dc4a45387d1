/** The serverless family: endpoints and their workers, and their routes. */
import { defineFamily } from "../family";
import { serverlessRoutes } from "./routes";
import { Serverless, type ServerlessWorld } from "./store";
import { endpointView } from "./view";

export const serverless = defineFamily({
  name: "serverless",
  store: (world: ServerlessWorld) => new Serverless(world),
  routes: serverlessRoutes,
  state: (store) => ({ endpoints: store.all().map((e) => ({ accountId: e.accountId, ...endpointView(e) })) }),
});
