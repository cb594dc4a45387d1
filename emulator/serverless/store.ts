/**
 * Serverless endpoints, as stored. An endpoint's answer never changes after create (workers are
 * not simulated), so the record keeps its wire view, built once by view.ts.
 */
import { TableModule } from "../records";
import type { EndpointView } from "./view";

export interface EndpointRecord {
  id: string;
  accountId: string;
  createdAt: number;
  view: EndpointView;
}

export class Serverless extends TableModule<EndpointRecord> {
  constructor() {
    super("serverless endpoint");
  }

  find(accountId: string, id: string): EndpointRecord {
    return this.records.owned(accountId, id);
  }

  add(endpoint: EndpointRecord): void {
    this.records.add(endpoint);
  }

  delete(endpoint: EndpointRecord): void {
    this.records.delete(endpoint);
  }
}
