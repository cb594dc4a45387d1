/**
 * Entries looked up by one key (an id, an API key, a session token) and listed in the order they
 * were given: the fixture's tables that requests read but never add to.
 */
export class Keyed<T> {
  private readonly byKey: Map<string, T>;

  constructor(entries: readonly T[], keyOf: (entry: T) => string) {
    this.byKey = new Map(entries.map((entry) => [keyOf(entry), entry]));
  }

  get(key: string): T | undefined {
    return this.byKey.get(key);
  }

  all(): T[] {
    return [...this.byKey.values()];
  }
}

export const byId = <T extends { id: string }>(entries: readonly T[]): Keyed<T> => new Keyed(entries, (entry) => entry.id);
