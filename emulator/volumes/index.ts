/** The volumes family: network volumes (CRUD) and global volumes (read-only), and their routes. */
import { defineFamily } from "../family";
import { volumeRoutes } from "./routes";
import { Volumes, type VolumesWorld } from "./store";

export const volumes = defineFamily({
  name: "volumes",
  store: (world: VolumesWorld) => new Volumes(world),
  routes: volumeRoutes,
  state: (store) => ({ networkVolumes: store.allNetwork() }),
});
