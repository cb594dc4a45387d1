/**
 * The Hub: read-only repositories from the fixture, served as the contract decisions describe
 * (`GET /v2/hub/repos` with search, filters, ordering and paging; get by id or owner/name).
 * There is deliberately no `type` parameter: the CLI filters by type after the page arrives.
 */
import { HubListQuery, parseWire } from "../../contract";
import type { Fixture, HubRepoFixture } from "../fixture";
import { json, notFound, unprocessable } from "../http";
import type { ResourceModule } from "../module";
import { route, type Route } from "../router";

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
  readonly name = "hub";
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

  routes(): Array<Route<unknown>> {
    return [
      route({
        method: "GET",
        path: "/v2/hub/repos",
        family: "hub",
        handle: (op) => {
          const parsed = parseWire(HubListQuery, Object.fromEntries(op.query));
          if (!parsed.ok) throw unprocessable("The query string is not valid", parsed.violations);
          return json(200, { repos: this.list(parsed.value) });
        },
      }),
      route({
        method: "GET",
        path: "/v2/hub/repos/:id",
        family: "hub",
        handle: (op) => {
          const repo = this.repos.find((r) => r.id === op.params.id);
          if (!repo) throw notFound("Hub repository", op.params.id);
          return json(200, repo);
        },
      }),
      route({
        method: "GET",
        path: "/v2/hub/repos/:owner/:name",
        family: "hub",
        handle: (op) => {
          const { owner, name } = op.params;
          const repo = this.repos.find((r) => r.owner.toLowerCase() === owner.toLowerCase() && r.name.toLowerCase() === name.toLowerCase());
          if (!repo) throw notFound("Hub repository", `${owner}/${name}`);
          return json(200, repo);
        },
      }),
    ];
  }
}
