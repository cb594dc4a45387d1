/**
 * The service host, registered as a family: a store with nothing to save (listeners, queued
 * settings and events live in memory only), reset and swept with the others, and its events in
 * `GET /_emulator/state`. The pods store reaches it as `serviceHost`; its control-plane
 * operations are the control family's (control/routes.ts).
 */
import { defineFamily } from "../family";
import { ServiceHost, type ServiceHostWorld } from "./host";

export const serviceHost = defineFamily({
  name: "serviceHost",
  store: (world: ServiceHostWorld) => new ServiceHost(world),
  state: (host) => ({ serviceEvents: host.events.list() }),
});
