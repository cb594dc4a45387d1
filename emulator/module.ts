/**
 * The shape every resource family's store has (its own state, reset from the fixture, saved and
 * restored as one slice of the state file), and the world the families see of each other.
 */
import type { Accounts } from "./accounts/store";
import type { Catalog } from "./catalog/store";
import type { Clock } from "./clock";
import type { Fixture } from "./fixture";
import type { Hub } from "./hub/store";
import type { LogStreams } from "./logs/stream";
import type { Timings } from "./options";
import type { Capacity } from "./placement/capacity";
import type { Pods } from "./pods/store";
import type { Sandboxes } from "./sandboxes/store";
import type { Serverless } from "./serverless/store";
import type { Shape } from "./shape";
import type { Templates } from "./templates/store";
import type { Volumes } from "./volumes/store";

export interface ResourceModule {
  readonly name: string;
  reset(fixture: Fixture, now: number): void;
  snapshot(): unknown;
  restore(slice: unknown, fixture: Fixture): void;
}

/** What families may use of each other and of the emulator (their routes and rules get it). */
export interface World {
  readonly clock: Clock;
  readonly timings: Timings;
  /** The answer shape in force (read at each request: the control plane can change it). */
  readonly shape: Shape;
  readonly accounts: Accounts;
  readonly catalog: Catalog;
  readonly capacity: Capacity;
  readonly templates: Templates;
  readonly volumes: Volumes;
  readonly pods: Pods;
  readonly sandboxes: Sandboxes;
  readonly serverless: Serverless;
  readonly hub: Hub;
  readonly logStreams: LogStreams;
  /** Control plane's "fail the next pod/sandbox start" switches; consumed by create. */
  takeFailNext(kind: "pod" | "sandbox"): boolean;
  /** Writes the state file (when a data directory is set); for changes made outside a request. */
  persist(): void;
}
