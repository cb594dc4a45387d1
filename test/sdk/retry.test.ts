import { BadRequestError, RateLimitError, ServerError } from "../../sdk";
import { backoff, parseRetryAfter, retryDelay } from "../../sdk/retry";
import { inTurn, problem, sendJson, useLoopback } from "../helpers/loopback";
import { podResponse } from "../helpers/fixtures";

const serve = useLoopback({ initialBackoffMs: 20, maxBackoffMs: 100 });

describe("retry policy", () => {
  const settings = { maxRetries: 3, maxRateLimitRetries: 2, rateLimitDeadlineMs: 60_000, maxRetryAfterMs: 5000, initialBackoffMs: 100, maxBackoffMs: 1000 };
  const info = { method: "GET", path: "/v2/pods" };

  it("waits what Retry-After says for a 429, bounded by maxRetryAfterMs", () => {
    const rate = (s?: number) => new RateLimitError({ status: 429, title: "t", detail: "d", request: info, retryAfterSeconds: s });
    expect(retryDelay(rate(3), { transient: 0, rateLimited: 0 }, settings)).toBe(3000);
    expect(retryDelay(rate(3600), { transient: 0, rateLimited: 0 }, settings)).toBe(5000);
    expect(retryDelay(rate(3), { transient: 0, rateLimited: 2 }, settings)).toBeUndefined();
  });

  it("keeps honouring 429s as long as the deadline allows, however many, and not past it", () => {
    const rate = new RateLimitError({ status: 429, title: "t", detail: "d", request: info, retryAfterSeconds: 1 });
    const unbounded = { ...settings, maxRateLimitRetries: Number.POSITIVE_INFINITY, rateLimitDeadlineMs: 30_000 };
    // Dozens of 429s in a row, 20 s into the storm: the next wait still fits.
    expect(retryDelay(rate, { transient: 0, rateLimited: 48, firstRateLimitedAt: performance.now() - 20_000 }, unbounded)).toBe(1000);
    // 29.5 s in: a 1 s wait would end past the deadline.
    expect(retryDelay(rate, { transient: 0, rateLimited: 59, firstRateLimitedAt: performance.now() - 29_500 }, unbounded)).toBeUndefined();
  });

  it("backs off exponentially with jitter for 5xx, and never retries other 4xx", () => {
    const server = new ServerError({ status: 503, title: "t", detail: "d", request: info });
    expect(retryDelay(server, { transient: 0, rateLimited: 0 }, settings, () => 1)).toBe(100);
    expect(retryDelay(server, { transient: 2, rateLimited: 0 }, settings, () => 1)).toBe(400);
    expect(retryDelay(server, { transient: 2, rateLimited: 0 }, settings, () => 0)).toBe(200);
    expect(retryDelay(server, { transient: 3, rateLimited: 0 }, settings)).toBeUndefined();
    expect(backoff(10, settings, () => 1)).toBe(1000);
    expect(retryDelay(new BadRequestError({ status: 400, title: "t", detail: "d", request: info }), { transient: 0, rateLimited: 0 }, settings)).toBeUndefined();
  });

  it("parses integer seconds and HTTP dates", () => {
    expect(parseRetryAfter("12", 0)).toBe(12);
    expect(parseRetryAfter(new Date(61_000).toUTCString(), 0)).toBe(61);
    expect(parseRetryAfter("soon", 0)).toBeUndefined();
  });
});

describe("retries on the wire", () => {
  it("honours Retry-After on a 429, then succeeds", async () => {
    const { server, client } = await serve(
      inTurn(
        (_req, res) => problem(res, 429, "Rate limit exceeded for the minute window", {}, { "retry-after": "1" }),
        (_req, res) => sendJson(res, 200, { pods: [] }),
      ),
    );
    await expect(client.pods.list()).resolves.toEqual([]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1].at - server.requests[0].at).toBeGreaterThanOrEqual(950);
  });

  it("rides out a storm of consecutive 429s, and names the deadline when one outlasts it", async () => {
    const storm = Array.from({ length: 30 }, () => (_req: unknown, res: Parameters<typeof problem>[0]) => problem(res, 429, "Rate limit exceeded", {}, { "retry-after": "0" }));
    const { server, client } = await serve(inTurn(...storm, (_req, res) => sendJson(res, 200, { pods: [] })));
    await expect(client.pods.list()).resolves.toEqual([]);
    expect(server.requests).toHaveLength(31);

    const endless = await serve((_req, res) => problem(res, 429, "Rate limit exceeded", {}, { "retry-after": "1" }), { rateLimitDeadlineMs: 1500 });
    const error = await endless.client.pods.list().then(
      () => undefined,
      (e: RateLimitError) => e,
    );
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error?.detail).toMatch(/still rate limited after 1 retries over \d+ s, honouring Retry-After; the deadline is rateLimitDeadlineMs 1500\)$/);
    expect(endless.server.requests).toHaveLength(2);
  });

  it("retries a read through a 5xx burst and a dropped connection", async () => {
    const { server, client } = await serve(
      inTurn(
        (_req, res) => problem(res, 502, "bad gateway"),
        (_req, _res, raw) => raw.socket.destroy(),
        (_req, res) => sendJson(res, 200, podResponse()),
      ),
    );
    await expect(client.pods.get("pod-1")).resolves.toMatchObject({ id: "pod-1" });
    expect(server.requests).toHaveLength(3);
  });

  it("sends a 400 exactly once", async () => {
    const { server, client } = await serve((_req, res) => problem(res, 400, "no capacity"));
    await expect(client.pods.get("p")).rejects.toBeInstanceOf(BadRequestError);
    expect(server.requests).toHaveLength(1);
  });
});

describe("duplicate-safe create", () => {
  /** A service that creates the pod, then loses the answer (a 500 or a cut connection). */
  async function lossyService(loseWith: "500" | "drop", options: { maxRetries?: number } = {}) {
    const pods: Record<string, unknown>[] = [];
    const { server, client } = await serve((req, res, raw) => {
      res.setHeader("date", new Date().toUTCString());
      if (req.method === "POST" && req.path === "/v2/pods") {
        const body = JSON.parse(req.body);
        const pod = podResponse({ id: `pod-${pods.length + 1}`, name: body.name, createdAt: new Date().toISOString() });
        pods.push(pod);
        if (pods.length === 1) return loseWith === "500" ? problem(res, 500, "upstream timeout") : raw.socket.destroy();
        return sendJson(res, 201, pod);
      }
      if (req.method === "GET" && req.path === "/v2/pods") return sendJson(res, 200, { pods });
      problem(res, 404, "no route");
    }, options);
    return { server, client, pods };
  }

  it.each(["500", "drop"] as const)("after a lost answer (%s) returns the pod that attempt created instead of creating another", async (loseWith) => {
    const { server, client, pods } = await lossyService(loseWith);
    const pod = await client.pods.create({ name: "trainer-a1", image: "img", gpu: { id: "A" } });
    expect(pod.id).toBe("pod-1");
    expect(pods).toHaveLength(1);
    expect(server.requests.filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("still recovers when the retries run out: the last lost answer may have created the pod", async () => {
    const { client, pods } = await lossyService("500", { maxRetries: 0 });
    const pod = await client.pods.create({ name: "trainer-last", image: "img", gpu: { id: "A" } });
    expect(pod.id).toBe("pod-1");
    expect(pods).toHaveLength(1);
  });

  it("looks again after a 429 that follows a lost answer: the first attempt's pod may have landed late", async () => {
    // POST 1: the pod is made but the answer is lost, and it shows in the list only after the
    // first look; POST 2: 429. The next look finds it: no third POST, no second pod.
    const pods: Record<string, unknown>[] = [];
    let late: Record<string, unknown> | undefined;
    let posts = 0;
    const { client } = await serve((req, res, raw) => {
      res.setHeader("date", new Date().toUTCString());
      if (req.method === "POST" && req.path === "/v2/pods") {
        posts += 1;
        const body = JSON.parse(req.body);
        if (posts === 1) {
          late = podResponse({ id: "pod-1", name: body.name, createdAt: new Date().toISOString() });
          return raw.socket.destroy();
        }
        if (posts === 2) return problem(res, 429, "Rate limit exceeded", {}, { "retry-after": "0" });
        const pod = podResponse({ id: `pod-${posts}`, name: body.name, createdAt: new Date().toISOString() });
        pods.push(pod);
        return sendJson(res, 201, pod);
      }
      if (req.method === "GET" && req.path === "/v2/pods") {
        sendJson(res, 200, { pods: [...pods] });
        if (late) pods.push(late);
        late = undefined;
        return;
      }
      problem(res, 404, "no route");
    });
    const pod = await client.pods.create({ name: "trainer-late", image: "img", gpu: { id: "A" } });
    expect(pod.id).toBe("pod-1");
    expect(posts).toBe(2);
  });

  it("does not adopt an older pod that merely shares the name", async () => {
    const old = podResponse({ id: "pod-old", name: "same", createdAt: new Date(Date.now() - 3_600_000).toISOString() });
    let posts = 0;
    const { client } = await serve((req, res) => {
      res.setHeader("date", new Date().toUTCString());
      if (req.method === "POST") {
        posts += 1;
        return posts === 1 ? problem(res, 503, "busy") : sendJson(res, 201, podResponse({ id: "pod-new", name: "same" }));
      }
      sendJson(res, 200, { pods: [old] });
    });
    await expect(client.pods.create({ name: "same", image: "img", gpu: { id: "A" } })).resolves.toMatchObject({ id: "pod-new" });
    expect(posts).toBe(2);
  });
});
