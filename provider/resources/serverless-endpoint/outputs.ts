/** The ServerlessEndpoint's outputs, listed once. */
import { stringMap } from "../../properties";
import type { OutputList } from "../definition";
import { READINESS_OUTPUTS } from "../readiness";
import { LIFETIME_OUTPUTS } from "../lifetime";

export const SERVERLESS_ENDPOINT_OUTPUTS = {
  endpointId: { type: "string", fixed: true, doc: "The service's endpoint id (also the resource id)." },
  requestUrls: { ...stringMap, fixed: true, doc: "Where requests go: `run`, `runSync`, `status`, … for `QUEUE`; `base` and `health` for `LOAD_BALANCER`." },
  workersMin: { type: "integer", doc: "The minimum workers the service applied." },
  workersMax: { type: "integer", doc: "The maximum workers the service applied." },
  imageApplied: { type: "string", nullable: true, doc: "The image the workers run (from the inputs, the template or the Hub release)." },
  computeType: { type: "string", fixed: true, doc: "`GPU` or `CPU`: the compute family, fixed at create." },
  createdAt: { type: "string", doc: "When the endpoint was created (ISO 8601)." },
  ...READINESS_OUTPUTS,
  ...LIFETIME_OUTPUTS,
} as const satisfies OutputList;
