/** The catalog family: GPU types, CPU flavors and data centers (static per fixture), and their routes. */
import { defineFamily } from "../family";
import { catalogRoutes } from "./routes";
import { Catalog } from "./store";

export const catalog = defineFamily({
  name: "catalog",
  store: () => new Catalog(),
  routes: catalogRoutes,
});
