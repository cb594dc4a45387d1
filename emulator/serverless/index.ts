/** The serverless family: endpoints, and their routes. */
import { defineFamily } from "../family";
import { serverlessRoutes } from "./routes";
import { Serverless } from "./store";
import { endpointView } from "./view";

export const serverless = defineFamily({
  name: "serverless",
  store: () => new Serverless(),
  routes: serverlessRoutes,
  state: (store) => ({ endpoints: store.all().map((e) => ({ accountId: e.accountId, ...endpointView(e) })) }),
});
