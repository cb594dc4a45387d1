/**
 * What a resource family registers (families.ts lists them): its store, its API routes, its
 * control-plane operations and its part of the control plane's state. Each part is declared
 * against the small world it needs (`PodsWorld`, `PodRoutesWorld`, …: other families' stores and
 * the `Services`), never against the emulator as a whole, so no family module imports the
 * registry or the emulator; the emulator, which holds every store and service, is checked
 * against all of those worlds where it builds them (emulator.ts).
 */
import type { Clock } from "./clock";
import type { LogStreams } from "./logs/stream";
import type { ResourceModule } from "./module";
import type { Timings } from "./options";
import type { ControlRoute, Route } from "./router";
import type { Shape } from "./shape";

/** What the emulator gives every family besides the other families' stores. */
export interface Services {
  readonly clock: Clock;
  readonly timings: Timings;
  /** The answer shape in force (read at each request: the control plane can change it). */
  readonly shape: Shape;
  readonly logStreams: LogStreams;
  /** Control plane's "fail the next pod/sandbox start" switches; consumed by create. */
  takeFailNext(kind: "pod" | "sandbox"): boolean;
  /** Writes the state file (when a data directory is set); for changes made outside a request. */
  persist(): void;
}

/**
 * One family. `name` is its member of the world (`world.pods`) and its slice of the state file,
 * so it never changes once state files exist. Stores are made in registry order: a store may
 * read, in its constructor, only the stores registered before it.
 */
export interface Family<Name extends string, S, StoreWorld, RoutesWorld, ControlWorld, State extends object> {
  readonly name: Name;
  store?(world: StoreWorld): S;
  /** The API operations (`familyRoutes`, router.ts). */
  routes?(world: RoutesWorld): Array<Route<unknown>>;
  /** Operations under `/_emulator/` (`controlRoute`, router.ts). */
  control?(world: ControlWorld): Array<ControlRoute<unknown>>;
  /** Its members of `GET /_emulator/state`, across accounts. */
  state?(store: S, now: number): State;
}

/** Declares a family; the types of its parts are inferred, and checked where the emulator builds them. */
export function defineFamily<
  const Name extends string,
  S extends ResourceModule = never,
  StoreWorld = unknown,
  RoutesWorld = unknown,
  ControlWorld = unknown,
  State extends object = object,
>(family: Family<Name, S, StoreWorld, RoutesWorld, ControlWorld, State>): Family<Name, S, StoreWorld, RoutesWorld, ControlWorld, State> {
  return family;
}
