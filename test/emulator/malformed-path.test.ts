/** A path that is not valid percent-encoding is a 400 problem, before authentication. */
import { useEmulator } from "./harness";

const h = useEmulator({}, (emulator) => emulator.control.clearRequests());

test.each([
  ["without credentials", null],
  ["with a valid key", undefined],
])("GET /v2/pods/%%ZZ %s: 400 application/problem+json", async (_name, key) => {
  const response = await h.get("/v2/pods/%ZZ", { key });
  expect(response.status).toBe(400);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect(response.body).toEqual({ title: "Bad Request", status: 400, detail: expect.stringContaining("/v2/pods/%ZZ") });
  const [logged] = await h.control.requests();
  expect(logged).toMatchObject({ path: "/v2/pods/%ZZ", status: 400, account: null });
});

test("an oversized body is still refused first (413), a valid escape still reaches the route", async () => {
  const big = await h.call("PATCH", "/v2/pods/%ZZ", { key: null, raw: "x".repeat(2 * 1024 * 1024), headers: { "Content-Type": "application/json" } });
  expect(big.status).toBe(413);
  expect((await h.get("/v2/pods/pod%5Fnope")).status).toBe(404);
  expect((await h.get("/v2/pods/%ZZ/logs")).status).toBe(400);
});
