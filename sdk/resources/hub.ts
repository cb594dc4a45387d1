/** The Hub marketplace (REST backend of the CLI's `hub` commands). */
import type { HttpCore } from "../http";
import { HubRepo, ListHubReposResponse, type HubListQuery } from "../../contract";

export class Hub {
  constructor(private readonly http: HttpCore) {}

  list(query: HubListQuery = {}, options: { signal?: AbortSignal } = {}) {
    return this.http.getList("/v2/hub/repos", ListHubReposResponse, "repos", { query: { ...query }, signal: options.signal });
  }

  search(text: string, query: Omit<HubListQuery, "query"> = {}, options: { signal?: AbortSignal } = {}) {
    return this.list({ ...query, query: text }, options);
  }

  /** By listing id, or by `owner/name`. */
  get(ref: string, options: { signal?: AbortSignal } = {}) {
    const slash = ref.indexOf("/");
    const path =
      slash > 0
        ? `/v2/hub/repos/${encodeURIComponent(ref.slice(0, slash))}/${encodeURIComponent(ref.slice(slash + 1))}`
        : `/v2/hub/repos/${encodeURIComponent(ref)}`;
    return this.http.request({ method: "GET", path, schema: HubRepo, signal: options.signal });
  }
}
