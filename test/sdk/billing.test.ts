/**
 * `client.billing`: a query is checked before any request (every violation at once); a window
 * longer than one answer may span is read in parts on bucket boundaries and merged into the
 * answer one request would have given; records the SDK cannot read are set aside, not fatal.
 */
import { BILLING_MAX_BUCKETS, ComputeClient, ComputeError, parseWire, BILLING_RESPONSES } from "../../sdk";
import { freshFixture, gpuPod, useEmulator } from "../emulator/harness";

const T0 = "2030-05-01T00:00:00Z";
const h = useEmulator({ freezeClock: T0 }, freshFixture(T0));
const HOUR = 3600_000;

function client() {
  return new ComputeClient({ baseUrl: h.url, apiKey: h.apiKey, env: {} });
}

test("a query is checked before any request, every violation at once, each naming its field", async () => {
  const sdk = client();
  try {
    await h.control.clearRequests();
    const refused = sdk.billing.pods({ startTime: "yesterday", bucketSize: "fortnight" as never, lastN: 0 });
    await expect(refused).rejects.toBeInstanceOf(ComputeError);
    await expect(refused).rejects.toThrow(/startTime: .*; bucketSize: .*; lastN: /);
    await expect(sdk.billing.pods({ lastN: 2, endTime: T0 })).rejects.toThrow("lastN: cannot be combined with startTime or endTime");
    await expect(sdk.billing.read("all", { id: "pod-1" })).rejects.toThrow("id: all records name no resource");
    // More than 100 requests' worth of buckets: refused, not read for minutes.
    await expect(sdk.billing.pods({ bucketSize: "hour", startTime: "2000-01-01T00:00:00Z", endTime: "2030-01-01T00:00:00Z" })).rejects.toThrow(
      "startTime: the window spans more than 100000 hour buckets (100 requests); ask for a shorter window or a larger bucketSize",
    );
    expect(await h.control.requests()).toEqual([]);
  } finally {
    await sdk.close();
  }
});

test("a date-time is taken as RFC 3339 or as Go prints one (what Pulumi YAML hands on for an unquoted timestamp), and sent as RFC 3339", async () => {
  const sdk = client();
  try {
    const answer = await sdk.billing.all({ startTime: "2030-04-30 22:00:00 -0200 -02", endTime: "2030-05-01T03:00:00+01:00", bucketSize: "hour" });
    expect(answer.metadata.query).toMatchObject({ startTime: "2030-05-01T00:00:00.000Z", endTime: "2030-05-01T02:00:00.000Z" });
    await expect(sdk.billing.all({ startTime: "May 1st" })).rejects.toThrow('startTime: must be an RFC 3339 date-time such as 2026-05-01T00:00:00Z, got "May 1st"');
  } finally {
    await sdk.close();
  }
});

test("a window of more buckets than one answer spans is read in parts and merged: the same totals as one daily read", async () => {
  const pod = (await h.post("/v2/pods", gpuPod())).body;
  const hours = BILLING_MAX_BUCKETS + 500;
  await h.control.advance(hours * HOUR);
  const sdk = client();
  try {
    await h.control.clearRequests();
    const end = new Date(Date.parse(T0) + hours * HOUR);
    const hourly = await sdk.billing.pods({ id: pod.id, bucketSize: "hour", startTime: T0, endTime: end });
    const asked = (await h.control.requests()).filter((r) => r.path === "/v2/billing/pods");
    expect(asked).toHaveLength(2);
    expect(hourly.records).toHaveLength(hours);
    expect(hourly.records.map((r) => r.startTime)).toEqual([...hourly.records.map((r) => r.startTime)].sort());
    expect(hourly.metadata).toMatchObject({ query: { startTime: "2030-05-01T00:00:00.000Z", endTime: end.toISOString(), bucketSize: "hour" }, recordCount: hours, uniquePodCount: 1 });

    const daily = await sdk.billing.pods({ id: pod.id, bucketSize: "day", startTime: T0, endTime: end });
    expect(hourly.metadata.totals.totalAmount).toBeCloseTo(daily.metadata.totals.totalAmount, 6);
    expect(hourly.metadata.totals.gpuAmount).toBeCloseTo(pod.cost * hours, 4);
  } finally {
    await sdk.close();
  }
});

describe("reading tolerantly", () => {
  const record = { startTime: T0, endTime: "2030-05-01T01:00:00Z", totalAmount: 1.5, gpuAmount: 1.5, cpuAmount: null, podId: "p1" };
  const metadata = { query: { startTime: T0, endTime: "2030-05-01T02:00:00Z", bucketSize: "hour", podId: null }, recordCount: 2, uniquePodCount: 2, totals: { totalAmount: 1.5 } };

  it("keeps members and components it does not know, reads a null component as absent, and sets aside a record it cannot read", () => {
    const parsed = parseWire(BILLING_RESPONSES.ListPodBillingResponse, {
      records: [{ ...record, gpuSecondsAmount: 0.2 }, { startTime: T0, endTime: "2030-05-01T01:00:00Z", totalAmount: "lots", podId: "p2" }],
      metadata: { ...metadata, currency: "USD" },
    });
    if (!parsed.ok) throw new Error(parsed.violations.join("; "));
    expect(parsed.value.records).toEqual([{ ...record, cpuAmount: undefined, gpuSecondsAmount: 0.2 }]);
    expect(parsed.value.setAside).toEqual([{ index: 1, id: undefined, name: undefined, violations: [expect.stringMatching(/^records\[1\]\.totalAmount: /)] }]);
    expect(parsed.value.metadata).toMatchObject({ currency: "USD", uniquePodCount: 2 });
  });
});
