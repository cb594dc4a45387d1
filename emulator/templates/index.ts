/** The templates family: own and public templates, and their routes. */
import { defineFamily } from "../family";
import { templateRoutes } from "./routes";
import { Templates } from "./store";

export const templates = defineFamily({
  name: "templates",
  store: () => new Templates(),
  routes: templateRoutes,
  state: (store) => ({ templates: store.all() }),
});
