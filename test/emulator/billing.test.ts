/**
 * The billing routes: what a pod, a cluster, serverless workers and a network volume cost on the
 * emulator's clock, read back in buckets exactly as reckoned by hand from the catalog's prices
 * (test/helpers/prices.ts) and docs/emulator.md's storage rate; resources keep their history
 * after they are gone; the window rule (snapping, `lastN`), the errors, and the public shapes.
 */
import { GPU, KEYS, freshFixture, gpuPod, useEmulator, type Harness } from "./harness";
import { violations } from "./openapi";
import { listPrices } from "../helpers/prices";

const T0 = "2030-05-01T08:00:00Z";
const h = useEmulator({ shape: "public", freezeClock: T0 }, freshFixture(T0));

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const at = (offsetMs: number) => new Date(Date.parse(T0) + offsetMs).toISOString();

async function billing(h: Harness, path: string, query: Record<string, string | number>): Promise<any> {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const response = await h.get(`${path}?${search}`);
  expect(response.status).toBe(200);
  return response.body;
}

/** What a record's amounts are, to the micro-dollar (the answer's precision). */
const amounts = (records: any[], member: string) => records.map((r) => ({ startTime: r.startTime, endTime: r.endTime, [member]: r[member], totalAmount: r.totalAmount }));
const close = (n: number) => expect.closeTo(n, 6);

describe("a pod bills while it holds its GPUs, at the catalog's price", () => {
  test("90 minutes, then stopped: exactly rate × 1.5 h, in hour and in day buckets", async () => {
    const rate = (await listPrices({ url: h.url, apiKey: h.apiKey })).gpu(GPU.rtx4090);
    const pod = (await h.post("/v2/pods", gpuPod({ gpu: { id: GPU.rtx4090 } }))).body;
    expect(pod.cost).toBeCloseTo(rate, 6);
    await h.control.advance(90 * MINUTE);
    expect((await h.post(`/v2/pods/${pod.id}/action`, { action: "stop" })).status).toBe(200);
    await h.control.advance(2 * HOUR); // stopped: nothing more

    const hourly = await billing(h, "/v2/billing/pods", { podId: pod.id, bucketSize: "hour", startTime: T0, endTime: at(4 * HOUR) });
    expect(amounts(hourly.records, "gpuAmount")).toEqual([
      { startTime: at(0), endTime: at(HOUR), gpuAmount: close(rate), totalAmount: close(rate) },
      { startTime: at(HOUR), endTime: at(2 * HOUR), gpuAmount: close(rate / 2), totalAmount: close(rate / 2) },
    ]);
    expect(hourly.records.every((r: any) => r.podId === pod.id && r.cpuAmount === 0 && r.diskAmount === 0)).toBe(true);
    expect(hourly.metadata).toEqual({
      query: { startTime: at(0), endTime: at(4 * HOUR), bucketSize: "hour", podId: pod.id },
      recordCount: 2,
      uniquePodCount: 1,
      totals: { totalAmount: close(rate * 1.5), gpuAmount: close(rate * 1.5), cpuAmount: 0, diskAmount: 0 },
    });

    const daily = await billing(h, "/v2/billing/pods", { podId: pod.id, bucketSize: "day", lastN: 1 });
    expect(amounts(daily.records, "gpuAmount")).toEqual([{ startTime: "2030-05-01T00:00:00.000Z", endTime: "2030-05-02T00:00:00.000Z", gpuAmount: close(rate * 1.5), totalAmount: close(rate * 1.5) }]);
  });

  test("a terminated pod is gone from the pods, not from billing; a start bills again", async () => {
    const rate = (await listPrices({ url: h.url, apiKey: h.apiKey })).gpu(GPU.rtx4090, 2);
    const pod = (await h.post("/v2/pods", gpuPod({ gpu: { id: GPU.rtx4090, count: 2 } }))).body;
    await h.control.advance(30 * MINUTE);
    await h.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    await h.control.advance(HOUR);
    await h.post(`/v2/pods/${pod.id}/action`, { action: "start" });
    await h.control.advance(15 * MINUTE);
    expect((await h.del(`/v2/pods/${pod.id}`)).status).toBe(204);
    await h.control.advance(HOUR);
    expect((await h.get(`/v2/pods/${pod.id}`)).status).toBe(404);

    const answer = await billing(h, "/v2/billing/pods", { podId: pod.id, bucketSize: "hour", startTime: T0, endTime: at(3 * HOUR) });
    expect(amounts(answer.records, "gpuAmount")).toEqual([
      { startTime: at(0), endTime: at(HOUR), gpuAmount: close(rate / 2), totalAmount: close(rate / 2) },
      { startTime: at(HOUR), endTime: at(2 * HOUR), gpuAmount: close(rate / 4), totalAmount: close(rate / 4) },
    ]);
  });
});

describe("clusters, serverless workers and network volumes", () => {
  test("a cluster's members bill under the cluster, at the node price × nodes, and not as pods", async () => {
    const node = (await listPrices({ url: h.url, apiKey: h.apiKey })).gpu(GPU.rtx4090, 2);
    const created = await h.post("/v2/clusters", { name: "trainer", type: "TRAINING", compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 2, podCount: 3 }, image: "pytorch/pytorch:2.4.0" });
    expect(created.status).toBe(201);
    const cluster = created.body;
    const members = (await h.get(`/v2/clusters/${cluster.id}/pods`)).body.pods as Array<{ id: string }>;
    expect(members).toHaveLength(3);
    await h.control.advance(2 * HOUR);
    expect((await h.del(`/v2/clusters/${cluster.id}`)).status).toBe(204);
    await h.control.advance(HOUR);

    const answer = await billing(h, "/v2/billing/clusters", { clusterId: cluster.id, bucketSize: "day", startTime: "2030-05-01T00:00:00Z", endTime: "2030-05-02T00:00:00Z" });
    expect(answer.records).toEqual([expect.objectContaining({ clusterId: cluster.id, gpuAmount: close(node * 3 * 2), diskAmount: 0, networkingAmount: 0, totalAmount: close(node * 3 * 2) })]);
    expect(answer.metadata.uniqueClusterCount).toBe(1);
    const pods = await billing(h, "/v2/billing/pods", { bucketSize: "day", startTime: "2030-05-01T00:00:00Z", endTime: "2030-05-02T00:00:00Z" });
    const memberIds = new Set(members.map((p) => p.id));
    expect(pods.records.filter((r: any) => memberIds.has(r.podId) || r.podId === cluster.id)).toEqual([]);
  });

  test("serverless: each active worker bills the serverless price of the GPU type it runs on, from its start until it stops", async () => {
    const gpus = (await h.get("/v2/catalog/gpus")).body.gpus as Array<{ id: string; pool: string | null; price: { serverless?: number } }>;
    const others = gpus.filter((g) => g.pool === "ADA_24" && g.id !== GPU.rtx4090).map((g) => g.id);
    const perWorker = gpus.find((g) => g.id === GPU.rtx4090)!.price.serverless!;
    const created = await h.post("/v2/serverless", {
      name: "ep",
      type: "QUEUE",
      scaling: { type: "QUEUE_DELAY", queueDelay: 1 },
      image: "runpod/worker:1",
      gpu: { pools: ["ADA_24"], excludedTypes: others },
      workers: { min: 2, max: 3 },
    });
    expect(created.status).toBe(201);
    await h.control.advance(HOUR);
    expect((await h.patch(`/v2/serverless/${created.body.id}`, { workers: { min: 1, max: 3 } })).status).toBe(200);
    await h.control.advance(HOUR);
    expect((await h.del(`/v2/serverless/${created.body.id}`)).status).toBe(204);
    await h.control.advance(HOUR);

    const answer = await billing(h, "/v2/billing/serverless", { serverlessId: created.body.id, bucketSize: "hour", startTime: T0, endTime: at(3 * HOUR) });
    expect(amounts(answer.records, "gpuAmount")).toEqual([
      { startTime: at(0), endTime: at(HOUR), gpuAmount: close(2 * perWorker), totalAmount: close(2 * perWorker) },
      { startTime: at(HOUR), endTime: at(2 * HOUR), gpuAmount: close(perWorker), totalAmount: close(perWorker) },
    ]);
    expect(answer.records[0]).toMatchObject({ serverlessId: created.body.id, cpuAmount: 0, diskAmount: 0, feeAmount: 0 });
  });

  test("a network volume bills its size at its tier's rate (docs/emulator.md: $0.0001 and $0.0002 per GB-hour), resized and deleted on the clock", async () => {
    const created = await h.post("/v2/network-volumes", { name: "data", dataCenter: "US-TX-3", size: 100, type: "HIGH_PERFORMANCE" });
    expect(created.status).toBe(201);
    await h.control.advance(HOUR);
    expect((await h.patch(`/v2/network-volumes/${created.body.id}`, { size: 300 })).status).toBe(200);
    await h.control.advance(30 * MINUTE);
    expect((await h.del(`/v2/network-volumes/${created.body.id}`)).status).toBe(204);
    await h.control.advance(HOUR);

    const answer = await billing(h, "/v2/billing/network-volumes", { networkVolumeId: created.body.id, bucketSize: "hour", startTime: T0, endTime: at(3 * HOUR) });
    expect(amounts(answer.records, "highPerformanceAmount")).toEqual([
      { startTime: at(0), endTime: at(HOUR), highPerformanceAmount: close(100 * 0.0002), totalAmount: close(100 * 0.0002) },
      { startTime: at(HOUR), endTime: at(2 * HOUR), highPerformanceAmount: close(300 * 0.0002 * 0.5), totalAmount: close(300 * 0.0002 * 0.5) },
    ]);
    expect(answer.records[0].standardAmount).toBe(0);
    expect(answer.metadata.uniqueNetworkVolumeCount).toBe(1);
  });
});

describe("/v2/billing: every family's spend, one record per bucket", () => {
  test("each bucket of the window is there; its amounts are the families' own, and its total their sum", async () => {
    const pod = (await h.post("/v2/pods", gpuPod())).body;
    const volume = (await h.post("/v2/network-volumes", { name: "v", dataCenter: "US-TX-3", size: 50 })).body;
    await h.control.advance(2 * HOUR);
    const query = { bucketSize: "hour", startTime: T0, endTime: at(3 * HOUR) };
    const all = await billing(h, "/v2/billing", query);
    expect(all.records.map((r: any) => r.startTime)).toEqual([at(0), at(HOUR), at(2 * HOUR)]);
    const pods = await billing(h, "/v2/billing/pods", query);
    const volumes = await billing(h, "/v2/billing/network-volumes", query);
    const clusters = await billing(h, "/v2/billing/clusters", query);
    expect(all.metadata.totals.podGpuAmount).toBeCloseTo(pods.metadata.totals.gpuAmount, 6);
    expect(all.metadata.totals.podCpuAmount).toBeCloseTo(pods.metadata.totals.cpuAmount, 6);
    expect(all.metadata.totals.storageStandardAmount).toBeCloseTo(volumes.metadata.totals.standardAmount, 6);
    expect(all.metadata.totals.clusterGpuAmount).toBeCloseTo(clusters.metadata.totals.gpuAmount, 6);
    for (const record of all.records) {
      const parts = Object.entries(record).filter(([k, v]) => k.endsWith("Amount") && k !== "totalAmount" && typeof v === "number");
      expect(record.totalAmount).toBeCloseTo(parts.reduce((sum, [, v]) => sum + (v as number), 0), 6);
    }
    // The new pod and volume are in it (the fixture's running pods bill too).
    expect(pods.records.some((r: any) => r.podId === pod.id)).toBe(true);
    expect(volumes.records.some((r: any) => r.networkVolumeId === volume.id)).toBe(true);
    expect(all.metadata.recordCount).toBe(3);
  });

  test("public endpoints: the emulator runs none, so no records and totals of 0", async () => {
    const answer = await billing(h, "/v2/billing/endpoints", { lastN: 2 });
    expect(answer.records).toEqual([]);
    expect(answer.metadata).toEqual({ query: expect.objectContaining({ bucketSize: "day" }), recordCount: 0, totals: { totalAmount: 0 } });
  });
});

describe("the window", () => {
  test("startTime snaps down and endTime up to their buckets; an endTime on a boundary stays; the default bucket is a day", async () => {
    const snapped = await billing(h, "/v2/billing", { bucketSize: "hour", startTime: "2030-05-01T05:30:00Z", endTime: "2030-05-01T07:15:00Z" });
    expect(snapped.metadata.query).toEqual({ startTime: "2030-05-01T05:00:00.000Z", endTime: "2030-05-01T08:00:00.000Z", bucketSize: "hour" });
    const onBoundary = await billing(h, "/v2/billing", { bucketSize: "hour", startTime: "2030-05-01T05:00:00Z", endTime: "2030-05-01T07:00:00Z" });
    expect(onBoundary.metadata.query.endTime).toBe("2030-05-01T07:00:00.000Z");
    const byDefault = await billing(h, "/v2/billing", {});
    expect(byDefault.metadata.query).toEqual({ startTime: "2030-04-01T00:00:00.000Z", endTime: "2030-05-02T00:00:00.000Z", bucketSize: "day" });
  });

  test("lastN is the last N buckets ending with the current one; weeks start on Monday; months and years on their first day", async () => {
    expect((await billing(h, "/v2/billing", { bucketSize: "day", lastN: 3 })).metadata.query).toEqual({ startTime: "2030-04-29T00:00:00.000Z", endTime: "2030-05-02T00:00:00.000Z", bucketSize: "day" });
    // 2030-05-01 is a Wednesday.
    expect((await billing(h, "/v2/billing", { bucketSize: "week", lastN: 1 })).metadata.query).toMatchObject({ startTime: "2030-04-29T00:00:00.000Z", endTime: "2030-05-06T00:00:00.000Z" });
    expect((await billing(h, "/v2/billing", { bucketSize: "month", lastN: 2 })).metadata.query).toMatchObject({ startTime: "2030-04-01T00:00:00.000Z", endTime: "2030-06-01T00:00:00.000Z" });
    expect((await billing(h, "/v2/billing", { bucketSize: "year", lastN: 1 })).metadata.query).toMatchObject({ startTime: "2030-01-01T00:00:00.000Z", endTime: "2031-01-01T00:00:00.000Z" });
  });

  test("values a parameter does not take are one 422 naming each; combinations the window rule refuses are 400", async () => {
    const bad = await h.get("/v2/billing/pods?startTime=yesterday&bucketSize=fortnight&lastN=0");
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([expect.stringMatching(/^startTime: must be an RFC 3339 date-time/), expect.stringMatching(/^bucketSize: must be one of/), "lastN: must be >= 1"]),
    );
    const both = await h.get(`/v2/billing?lastN=3&startTime=${T0}`);
    expect(both.status).toBe(400);
    expect(both.body.detail).toMatch(/lastN cannot be combined with startTime or endTime/);
    const backwards = await h.get(`/v2/billing?startTime=${at(HOUR)}&endTime=${T0}`);
    expect(backwards.status).toBe(400);
    expect(backwards.body.detail).toBe("startTime must be before endTime");
    const ancient = await h.get("/v2/billing?bucketSize=year&lastN=10000000");
    expect(ancient.status).toBe(400);
    expect(ancient.body.detail).toBe("lastN reaches before the year 0000");
    const tooLong = await h.get("/v2/billing?bucketSize=hour&startTime=2029-01-01T00:00:00Z");
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.detail).toMatch(/more than 1000 hour buckets/);
    for (const problem of [bad, both, backwards, ancient, tooLong]) expect(violations("ErrorResponse", problem.body)).toEqual([]);
  });
});

describe("answers conform to the public OpenAPI", () => {
  test("every route, with records and with a filter", async () => {
    await h.post("/v2/pods", gpuPod());
    await h.post("/v2/network-volumes", { name: "v", dataCenter: "US-TX-3", size: 50 });
    await h.control.advance(HOUR);
    const routes: Array<[string, string]> = [
      ["/v2/billing", "ListBillingResponse"],
      ["/v2/billing/pods", "ListPodBillingResponse"],
      ["/v2/billing/serverless", "ListServerlessBillingResponse"],
      ["/v2/billing/endpoints", "ListEndpointBillingResponse"],
      ["/v2/billing/network-volumes", "ListNetworkVolumeBillingResponse"],
      ["/v2/billing/clusters", "ListClusterBillingResponse"],
    ];
    for (const [path, schema] of routes) {
      const body = await billing(h, path, { bucketSize: "hour", lastN: 3 });
      expect({ path, violations: violations(schema, body) }).toEqual({ path, violations: [] });
    }
    const pods = await billing(h, "/v2/billing/pods", { bucketSize: "hour", lastN: 3 });
    expect(pods.records.length).toBeGreaterThan(0);
    const one = await billing(h, "/v2/billing/pods", { bucketSize: "hour", lastN: 3, podId: pods.records[0].podId });
    expect(violations("ListPodBillingResponse", one)).toEqual([]);
    expect(new Set(one.records.map((r: any) => r.podId))).toEqual(new Set([pods.records[0].podId]));
  });

  test("billing is a scope of its own: a read-only key with billing:read reads it, a pods-only key is refused", async () => {
    expect((await h.get("/v2/billing", { key: KEYS.devReadOnly })).status).toBe(200);
    const refused = await h.get("/v2/billing/pods", { key: KEYS.devNoSandboxes });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe("This API key has no access to billing");
  });
});
