/**
 * Records keyed by id and owned by an account, as the stateful families keep them, and the
 * module of a family whose whole state is one such table: reset from the fixture, saved as one
 * list in the state file and loaded back from it.
 */
import type { Fixture } from "./fixture";
import { orNotFound } from "./http";
import type { ResourceModule } from "./module";

/** A record of one account (a public catalog template has none). */
export interface Owned {
  id: string;
  accountId: string | null;
}

export class RecordTable<T extends Owned> {
  private byId = new Map<string, T>();

  /** `noun` names the record in a 404 ("sandbox", "network volume"). */
  constructor(private readonly noun: string) {}

  /** Replaces every record (a reset from the fixture, a restore from the state file). */
  load(records: T[]): void {
    this.byId = new Map(records.map((r) => [r.id, r]));
  }

  /** Every record of every account, in the order they were added. */
  all(): T[] {
    return [...this.byId.values()];
  }

  /** Whoever owns it (the control plane acts across accounts). */
  get(id: string): T | undefined {
    return this.byId.get(id);
  }

  /** The account's record with this id, if it has one. */
  ofAccount(accountId: string, id: string): T | undefined {
    const record = this.byId.get(id);
    return record && record.accountId === accountId ? record : undefined;
  }

  /** The account's record; an unknown id and another account's are the same 404 (never 403, so no one learns it exists). */
  owned(accountId: string, id: string): T {
    return orNotFound(this.ofAccount(accountId, id), this.noun, id);
  }

  add(record: T): T {
    this.byId.set(record.id, record);
    return record;
  }

  delete(record: T): void {
    this.byId.delete(record.id);
  }

  /** Runs `change` over every record (it may delete the one it is given); true when it changed any. */
  changeEach(change: (record: T) => boolean): boolean {
    let changed = false;
    for (const record of this.all()) if (change(record)) changed = true;
    return changed;
  }
}

/** A family whose whole state is one table: the state file's slice is the table's list. */
export abstract class TableModule<T extends Owned> implements ResourceModule {
  protected readonly records: RecordTable<T>;

  constructor(noun: string) {
    this.records = new RecordTable<T>(noun);
  }

  /** The records a fixture starts with, as copies (a reset leaves the fixture as it was loaded); none unless a family seeds some. */
  protected seed(_fixture: Fixture, _now: number): T[] {
    return [];
  }

  reset(fixture: Fixture, now: number): void {
    this.records.load(this.seed(fixture, now));
  }

  snapshot(): T[] {
    return this.records.all();
  }

  /** `fixture` is for a family that older state files have no slice of (it then starts from the fixture's records). */
  restore(slice: unknown, _fixture: Fixture, _now: number): void {
    this.records.load(slice as T[]);
  }

  /** Every record of every account, as stored (control-plane state). */
  all(): T[] {
    return this.records.all();
  }
}
