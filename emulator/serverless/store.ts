/**
 * Serverless endpoints, as stored. An endpoint's answer never changes after create (workers are
 * not simulated), so the record keeps its wire view, built once by view.ts.
 */
import type { Fixture } from "../fixture";
import { notFound } from "../http";
import type { ResourceModule } from "../module";
import type { EndpointView } from "./view";

export interface EndpointRecord {
  id: string;
  accountId: string;
  createdAt: number;
  view: EndpointView;
}

export class Serverless implements ResourceModule {
  readonly name = "serverless";
  private endpoints = new Map<string, EndpointRecord>();

  reset(_fixture: Fixture): void {
    this.endpoints = new Map();
  }

  snapshot(): EndpointRecord[] {
    return [...this.endpoints.values()];
  }

  restore(slice: unknown): void {
    this.endpoints = new Map((slice as EndpointRecord[]).map((e) => [e.id, e]));
  }

  all(): EndpointRecord[] {
    return [...this.endpoints.values()];
  }

  find(accountId: string, id: string): EndpointRecord {
    const endpoint = this.endpoints.get(id);
    if (!endpoint || endpoint.accountId !== accountId) throw notFound("serverless endpoint", id);
    return endpoint;
  }

  add(endpoint: EndpointRecord): void {
    this.endpoints.set(endpoint.id, endpoint);
  }

  delete(endpoint: EndpointRecord): void {
    this.endpoints.delete(endpoint.id);
  }
}
