/** The serverless family: endpoints, and their routes. */
import { defineFamily } from "../family";
import { serverlessRoutes } from "./routes";
import { Serverless } from "./store";

export const serverless = defineFamily({
  name: "serverless",
  store: () => new Serverless(),
  routes: serverlessRoutes,
  state: (store) => ({ endpoints: store.all().map((x) => ({ accountId: x.accountId, ...x.view })) }),
});
