/**
 * The shape every resource family's store has: its own state, reset from the fixture, saved and
 * restored as one slice of the state file (under its family's name in the registry, families.ts).
 * Depends on no family, so every store can implement it.
 */
import type { Fixture } from "./fixture";

export interface ResourceModule {
  reset(fixture: Fixture, now: number): void;
  snapshot(): unknown;
  /** `now`: the restored clock's instant (for what a state file from an earlier version does not record). */
  restore(slice: unknown, fixture: Fixture, now: number): void;
  /** Writes down what the clock brought about (expiries, completed terminations); true when something changed. */
  sweep?(now: number): boolean;
}
