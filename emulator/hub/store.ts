/**
 * The Hub: read-only repositories from the fixture (already in their wire shape, checked against
 * the contract's `HubRepo` at load), searched, filtered, ordered and paged as the contract
 * decisions describe. There is deliberately no `type` filter: the CLI filters after the page arrives.
 */
import type { HubListQuery } from "../../contract";
import type { Fixture, HubRepoFixture } from "../fixture";
import { orNotFound } from "../http";
import type { ResourceModule } from "../module";

type OrderBy = NonNullable<HubListQuery["orderBy"]>;

function sortKey(repo: HubRepoFixture, orderBy: OrderBy): number | null {
  switch (orderBy) {
    case "createdAt":
    case "updatedAt":
    case "releasedAt": {
      const value = repo[orderBy];
      return value === null ? null : Date.parse(value);
    }
    default:
      return repo[orderBy];
  }
}

export class Hub implements ResourceModule {
  private repos: HubRepoFixture[] = [];

  reset(fixture: Fixture): void {
    this.repos = fixture.hubRepos;
  }

  /** Repositories come from the fixture, which the state file already holds. */
  snapshot(): null {
    return null;
  }

  restore(_slice: unknown, fixture: Fixture): void {
    this.repos = fixture.hubRepos;
  }

  list(query: HubListQuery): HubRepoFixture[] {
    const needle = query.query?.toLowerCase();
    const category = query.category?.toLowerCase();
    const owner = query.owner?.toLowerCase();
    const orderBy = query.orderBy ?? "stars";
    const direction = (query.orderDir ?? "desc") === "desc" ? -1 : 1;
    const matches = this.repos.filter(
      (r) =>
        (needle === undefined || r.name.toLowerCase().includes(needle)) &&
        (category === undefined || r.category.toLowerCase() === category) &&
        (owner === undefined || r.owner.toLowerCase() === owner),
    );
    // Unreleased repositories (null releasedAt) sort last in both directions; ties by id keep pages stable.
    matches.sort((a, b) => {
      const x = sortKey(a, orderBy);
      const y = sortKey(b, orderBy);
      if (x === null || y === null) return x === y ? a.id.localeCompare(b.id) : x === null ? 1 : -1;
      return (x - y) * direction || a.id.localeCompare(b.id);
    });
    const offset = query.offset ?? 0;
    return matches.slice(offset, offset + (query.limit ?? 10));
  }

  byId(id: string): HubRepoFixture {
    return orNotFound(this.repos.find((r) => r.id === id), "Hub repository", id);
  }

  /** Owner and name match without regard to case. */
  byName(owner: string, name: string): HubRepoFixture {
    const matches = (r: HubRepoFixture) => r.owner.toLowerCase() === owner.toLowerCase() && r.name.toLowerCase() === name.toLowerCase();
    return orNotFound(this.repos.find(matches), "Hub repository", `${owner}/${name}`);
  }
}
