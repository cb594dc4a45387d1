/** The control plane, registered as a family without a store: its operations under `/_emulator/`. */
import { defineFamily } from "../family";
import { controlRoutes } from "./routes";

export const control = defineFamily({
  name: "control",
  control: controlRoutes,
});
