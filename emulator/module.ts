/**
 * The shape every resource module has: its own state, reset from the fixture, saved and restored
 * as one slice of the state file, and the routes it serves.
 */
import type { Fixture } from "./fixture";
import type { Route } from "./router";
import type { Clock } from "./clock";
import type { Timings } from "./options";
import type { Shape } from "./shape";
import type { Accounts } from "./resources/accounts";
import type { Catalog } from "./resources/catalog";
import type { Templates } from "./resources/templates";
import type { Volumes } from "./resources/volumes";
import type { Pods } from "./resources/pods";
import type { Sandboxes } from "./resources/sandboxes";

export interface ResourceModule {
  readonly name: string;
  reset(fixture: Fixture, now: number): void;
  snapshot(): unknown;
  restore(slice: unknown, fixture: Fixture): void;
  routes(): Array<Route<unknown>>;
}

/** What modules may use of each other and of the emulator (passed at construction). */
export interface World {
  readonly clock: Clock;
  readonly timings: Timings;
  /** The answer shape in force (read at each request: the control plane can change it). */
  readonly shape: Shape;
  readonly accounts: Accounts;
  readonly catalog: Catalog;
  readonly templates: Templates;
  readonly volumes: Volumes;
  readonly pods: Pods;
  readonly sandboxes: Sandboxes;
  /** Control plane's "fail the next pod/sandbox start" switches; consumed by create. */
  takeFailNext(kind: "pod" | "sandbox"): boolean;
  /** Writes the state file (when a data directory is set); for changes made outside a request. */
  persist(): void;
}
