import {
  ApiError,
  AuthenticationError,
  ComputeClient,
  ComputeError,
  ConfigurationError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PayloadTooLargeError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  ServerError,
  UnprocessableEntityError,
  BadRequestError,
} from "../../sdk";
import { problem, sendJson, startLoopback, TEST_KEY, useLoopback, type Loopback } from "../helpers/loopback";
import { podResponse } from "../helpers/fixtures";
import { secondCopyOfSdkErrors } from "../helpers/second-copy";

const serve = useLoopback();

describe("error tree mapped from status", () => {
  let server: Loopback;
  let client: ComputeClient;
  let next: { status: number; extra?: Record<string, unknown>; headers?: Record<string, string> };

  beforeAll(async () => {
    server = await startLoopback((_req, res) => problem(res, next.status, `detail for ${next.status}`, next.extra, next.headers));
    client = new ComputeClient({ baseUrl: server.url, apiKey: TEST_KEY, env: {}, maxRetries: 0, maxRateLimitRetries: 0 });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  const cases: Array<[number, new (...args: never[]) => ApiError]> = [
    [400, BadRequestError],
    [401, AuthenticationError],
    [402, PaymentRequiredError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [413, PayloadTooLargeError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, ServerError],
    [503, ServerError],
  ];

  it.each(cases)("status %i becomes its own class carrying status, title, detail and the request", async (status, ErrorClass) => {
    next = { status };
    const error = await client.pods.get("pod-9").catch((e) => e);
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(ComputeError);
    expect(error).toMatchObject({ status, title: `Status ${status}`, detail: `detail for ${status}`, request: { method: "GET", path: "/v2/pods/pod-9" } });
    expect(error.message).toContain(`GET /v2/pods/pod-9 failed with ${status}`);
    expect(error.message).not.toContain(TEST_KEY);
  });

  it("keeps the 422 errors list, the 409 code and the 429 Retry-After", async () => {
    next = { status: 422, extra: { errors: ["name: is required", "gpu.count: must be >= 1"] } };
    const unprocessable = await client.pods.get("x").catch((e) => e);
    expect(unprocessable.errors).toEqual(["name: is required", "gpu.count: must be >= 1"]);
    expect(unprocessable.message).toContain("gpu.count: must be >= 1");

    next = { status: 409, extra: { code: "sandbox_starting" } };
    expect(await client.sandboxes.get("s").catch((e) => e)).toMatchObject({ code: "sandbox_starting" });

    next = { status: 429, headers: { "retry-after": "7" } };
    expect(await client.pods.get("x").catch((e) => e)).toMatchObject({ retryAfterSeconds: 7 });
  });

  it("redacts the API key even if a server echoes it", async () => {
    next = { status: 401, extra: { detail: `key ${TEST_KEY} is invalid` } };
    const error = await client.pods.get("x").catch((e) => e);
    expect(error.message).not.toContain(TEST_KEY);
    expect(error.detail).toContain("[redacted]");
  });
});

describe("instanceof across two copies of the SDK", () => {
  it("recognises an error thrown by another copy of the package", () => {
    const other = secondCopyOfSdkErrors();
    const foreign = new other.NotFoundError({ status: 404, title: "Not Found", detail: "gone", request: { method: "GET", path: "/v2/pods/x" } });
    expect(other.NotFoundError).not.toBe(NotFoundError); // truly a second copy
    expect(foreign).toBeInstanceOf(NotFoundError);
    expect(foreign).toBeInstanceOf(ApiError);
    expect(foreign).toBeInstanceOf(ComputeError);
    expect(foreign).not.toBeInstanceOf(ConflictError);
    expect(new Error("plain")).not.toBeInstanceOf(ComputeError);
  });
});

describe("responses and connections", () => {
  it("names the field when a response does not match the contract", async () => {
    const { client } = await serve((_req, res) => sendJson(res, 200, podResponse({ status: "SLEEPING", disk: "big" })));
    const error = await client.pods.get("pod-1").catch((e) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.violations).toEqual(expect.arrayContaining([expect.stringMatching(/^status: must be one of/), "disk: must be a number"]));
  });

  it("maps a refused connection to ConnectionError without the key", async () => {
    const server = await startLoopback(() => undefined);
    const url = server.url;
    await server.close();
    const client = new ComputeClient({ baseUrl: url, apiKey: TEST_KEY, env: {}, maxRetries: 1, initialBackoffMs: 10 });
    const error = await client.pods.get("x").catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toMatch(/connection to http:\/\/127\.0\.0\.1:\d+ failed/);
    expect(error.message).not.toContain(TEST_KEY);
    await client.close();
  });

  it.each([
    ["after a request", true],
    ["before any request (its pool is made on the first)", false],
  ])("a closed client refuses to send, %s: a ConnectionError, and nothing reaches the server", async (_when, requestFirst) => {
    const server = await startLoopback((_req, res) => sendJson(res, 200, { pods: [] }));
    const client = new ComputeClient({ baseUrl: server.url, apiKey: TEST_KEY, env: {}, maxRetries: 0 });
    try {
      if (requestFirst) await client.pods.list();
      const sent = server.requests.length;
      await client.close();
      const error = await client.pods.list().catch((e) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect(server.requests).toHaveLength(sent);
    } finally {
      await server.close();
    }
  });
});

describe("configuration", () => {
  it("fails before any request when the key or base URL is missing, naming both ways to set them", () => {
    expect(() => new ComputeClient({ env: {} })).toThrow(ConfigurationError);
    expect(() => new ComputeClient({ env: {} })).toThrow(/baseUrl: is required \(pass baseUrl or set COMPUTE_BASE_URL\)[\s\S]*apiKey: is required \(pass apiKey or set COMPUTE_API_KEY\)/);
  });

  it("reads COMPUTE_BASE_URL, COMPUTE_API_KEY and COMPUTE_TEAM_ID and sends X-Team-Id", async () => {
    const server = await startLoopback((_req, res) => sendJson(res, 200, { pods: [] }));
    const client = new ComputeClient({ env: { COMPUTE_BASE_URL: `${server.url}/v2`, COMPUTE_API_KEY: TEST_KEY, COMPUTE_TEAM_ID: "team-7" } });
    try {
      await client.pods.list();
      expect(server.requests[0].headers.authorization).toBe(`Bearer ${TEST_KEY}`);
      expect(server.requests[0].headers["x-team-id"]).toBe("team-7");
      expect(server.requests[0].path).toBe("/v2/pods");
    } finally {
      await client.close();
      await server.close();
    }
  });
});
