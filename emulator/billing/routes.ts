/**
 * The six billing routes (public OpenAPI, operation group Billing). A value that is not what its
 * parameter takes (a date-time that is not RFC 3339, an unknown bucket size, `lastN` below 1) is
 * 422 with every violation, as every query here (decision 23); a combination the window rule
 * refuses (`lastN` with `startTime` or `endTime`, a start not before its end) and a window over
 * `BILLING_MAX_BUCKETS` buckets are 400.
 */
import { BILLING_MAX_BUCKETS, BILLING_ROUTES, BILLING_ROUTE_NAMES, BillingBucketSize, bucketCount, resolveBillingWindow, type BillingRoute } from "../../contract/billing";
import { badRequest, json } from "../http";
import { readQuery } from "../query";
import { familyRoutes } from "../router";
import { parseMillis } from "../time";
import { billingAnswer } from "./answers";
import type { Meter } from "./meter";

function readBillingQuery(route: BillingRoute, query: URLSearchParams) {
  const idFilter = BILLING_ROUTES[route].idFilter;
  return readQuery(query, (q) => {
    const time = (name: string) => {
      const text = q.string(name);
      if (text === undefined) return undefined;
      const at = parseMillis(text);
      if (at === undefined) q.fail(name, "must be an RFC 3339 date-time, such as 2026-05-01T00:00:00Z");
      return at;
    };
    return {
      startTime: time("startTime"),
      endTime: time("endTime"),
      bucketSize: q.enumValue("bucketSize", BillingBucketSize.options),
      lastN: q.integer("lastN", 1),
      filter: idFilter ? q.string(idFilter) : undefined,
    };
  });
}

export const billingRoutes = familyRoutes("billing", (route, world: { readonly billing: Meter }) =>
  BILLING_ROUTE_NAMES.map((name) =>
    route({
      method: "GET",
      path: BILLING_ROUTES[name].path,
      handle: (op) => {
        const { filter, ...asked } = readBillingQuery(name, op.query);
        const window = resolveBillingWindow(asked, op.now);
        if ("violation" in window) throw badRequest(`${window.violation.field} ${window.violation.rule}`);
        const buckets = bucketCount(window);
        if (buckets > BILLING_MAX_BUCKETS) {
          throw badRequest(`The window spans more than ${BILLING_MAX_BUCKETS} ${window.bucketSize} buckets; ask for a shorter window or a larger bucketSize`);
        }
        const uses = world.billing.usesOf(op.account.id, window.start, window.end, op.now);
        return json(200, billingAnswer(name, uses, window, filter));
      },
    }),
  ),
);
