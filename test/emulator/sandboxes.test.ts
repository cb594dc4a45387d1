/** Sandboxes: create, get, list, PATCH idle timeout, extend, delete, expiry and failure. */
import { createdSandbox, expectViolationsIncluding, freshFixture, KEYS, runningSandbox, sandboxBody, seconds, useEmulator } from "./harness";

const h = useEmulator({ freezeClock: "2030-03-01T12:00:00Z" }, freshFixture("2030-03-01T12:00:00Z"));

const get = async (id: string) => (await h.get(`/v2/sandboxes/${id}`)).body;

describe("create", () => {
  test("201 CREATING with defaults, then RUNNING with startedAt as its last activity", async () => {
    const sb = await createdSandbox(h, sandboxBody({ labels: { team: "ml" }, ports: ["8000/http"] }));
    expect(sb).toMatchObject({
      state: "CREATING",
      templateId: null,
      image: "python:3.12-slim",
      dataCenterId: "US-TX-3",
      compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10, costPerHr: expect.any(Number) },
      ports: ["8000/http"],
      egressPolicy: { mode: "ALLOW_ALL", allow: [] },
      idleTimeoutSeconds: 600,
      maxLifetimeSeconds: 3600,
      labels: { team: "ml" },
      startedAt: null,
      terminationReason: null,
      terminatedAt: null,
    });
    await h.control.advance(100);
    const running = await get(sb.id);
    expect(running.state).toBe("RUNNING");
    expect(running.startedAt).toBe("2030-03-01T12:00:00.100Z");
    expect(running.lastActivityAt).toBe(running.startedAt);
    expect(seconds(running.lastActivityAt, running.idleExpiresAt)).toBe(600);
    expect(seconds(running.startedAt, running.expiresAt)).toBe(3600);
  });

  test("every violation is reported at once with 422", async () => {
    const response = await h.post("/v2/sandboxes", {
      name: "",
      compute: { vcpuCount: 0, memoryInGb: 4, containerDiskInGb: 10 },
      egressPolicy: { mode: "ALLOW_LIST", allow: [] },
      labels: { "bad key!": "x" },
      maxLifetimeSeconds: 100,
      nope: 1,
    });
    expectViolationsIncluding(response, [
      /^name: /,
      /^compute\.vcpuCount: /,
      /^egressPolicy\.allow: must not be empty/,
      /^labels/,
      /^maxLifetimeSeconds: must be >= 300/,
      "nope: unknown property",
      "image: is required unless templateId is set",
    ]);
    const tooLong = await h.post("/v2/sandboxes", sandboxBody({ maxLifetimeSeconds: 86401 }));
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors).toEqual(["maxLifetimeSeconds: must be <= 86400 (the account maximum)"]);
  });

  test("the idle timeout is clamped to [90, account maximum]; a template supplies the image", async () => {
    expect((await createdSandbox(h, sandboxBody({ idleTimeoutSeconds: 10 }))).idleTimeoutSeconds).toBe(90);
    expect((await createdSandbox(h, sandboxBody({ idleTimeoutSeconds: 99999 }))).idleTimeoutSeconds).toBe(3600);
    const fromTemplate = await h.post("/v2/sandboxes", sandboxBody({ image: undefined, templateId: "tpl_ubuntu" }));
    expect(fromTemplate.body).toMatchObject({ image: "ubuntu:22.04", templateId: "tpl_ubuntu" });
    expect((await h.post("/v2/sandboxes", sandboxBody({ image: undefined, templateId: "tpl_vllm_worker" }))).status).toBe(422);
  });

  test("data-center preference and an ALLOW_LIST egress policy are kept", async () => {
    const sb = await createdSandbox(h, sandboxBody({ dataCenterIds: ["EU-RO-1"], egressPolicy: { mode: "ALLOW_LIST", allow: ["pypi.org", "10.0.0.0/8"] } }));
    expect(sb.dataCenterId).toBe("EU-RO-1");
    expect(sb.egressPolicy).toEqual({ mode: "ALLOW_LIST", allow: ["pypi.org", "10.0.0.0/8"] });
  });
});

describe("list", () => {
  test("filters by state and by every label given (AND, exact), excluding terminated unless asked", async () => {
    const a = await runningSandbox(h, sandboxBody({ labels: { team: "ml", env: "dev" } }));
    const b = await runningSandbox(h, sandboxBody({ labels: { team: "ml", env: "prod" } }));
    const c = await createdSandbox(h, sandboxBody({ labels: { team: "web" } }));
    await h.del(`/v2/sandboxes/${b.id}`);
    const ids = async (query: string) => (await h.get(`/v2/sandboxes${query}`)).body.sandboxes.map((s: { id: string }) => s.id);
    expect(await ids("")).toEqual([a.id, c.id]);
    expect(await ids("?state=TERMINATED")).toEqual([b.id]);
    expect(await ids("?state=RUNNING")).toEqual([a.id]);
    expect(await ids("?labels=team=ml")).toEqual([a.id]);
    expect(await ids("?labels=team=ml&labels=env=prod&state=TERMINATED")).toEqual([b.id]);
    expect(await ids("?labels=team=ml&labels=env=staging")).toEqual([]);
    expect(await ids("?labels=team=m")).toEqual([]);
    expect((await h.get("/v2/sandboxes?state=DONE")).status).toBe(422);
    expect((await get(b.id)).state).toBe("TERMINATED");
  });
});

describe("PATCH idle timeout", () => {
  test("clamps, and computes idleExpiresAt from lastActivityAt, not from the request time", async () => {
    const sb = await runningSandbox(h);
    await h.control.advance(60_000);
    const patched = await h.patch(`/v2/sandboxes/${sb.id}`, { idleTimeoutSeconds: 300 });
    expect(patched.status).toBe(200);
    expect(patched.body.idleTimeoutSeconds).toBe(300);
    expect(patched.body.lastActivityAt).toBe(sb.lastActivityAt);
    expect(seconds(sb.lastActivityAt, patched.body.idleExpiresAt)).toBe(300);
    expect((await h.patch(`/v2/sandboxes/${sb.id}`, { idleTimeoutSeconds: 30 })).body.idleTimeoutSeconds).toBe(90);
    expect((await h.patch(`/v2/sandboxes/${sb.id}`, { idleTimeoutSeconds: 10 ** 6 })).body.idleTimeoutSeconds).toBe(3600);
  });

  test("anything but {idleTimeoutSeconds: integer} is 400; a sandbox that is not RUNNING is 422", async () => {
    const sb = await runningSandbox(h);
    expect((await h.patch(`/v2/sandboxes/${sb.id}`, { idleTimeoutSeconds: 300, labels: {} })).status).toBe(400);
    expect((await h.patch(`/v2/sandboxes/${sb.id}`, { idleTimeoutSeconds: "300" })).status).toBe(400);
    expect((await h.patch(`/v2/sandboxes/${sb.id}`, [300])).status).toBe(400);
    const creating = await createdSandbox(h);
    expect((await h.patch(`/v2/sandboxes/${creating.id}`, { idleTimeoutSeconds: 300 })).status).toBe(422);
    await h.del(`/v2/sandboxes/${sb.id}`);
    const terminated = await h.patch(`/v2/sandboxes/${sb.id}`, { idleTimeoutSeconds: 300 });
    expect(terminated.status).toBe(422);
    expect(terminated.body.detail).toMatch(/TERMINATED/);
    expect((await h.patch("/v2/sandboxes/sb-nope", { idleTimeoutSeconds: 300 })).status).toBe(404);
  });
});

describe("extend", () => {
  test("sets a larger total lifetime counted from startedAt, up to the account maximum", async () => {
    const sb = await runningSandbox(h);
    const extended = await h.post(`/v2/sandboxes/${sb.id}/extend`, { maxLifetimeSeconds: 7200 });
    expect(extended.status).toBe(200);
    expect(seconds(sb.startedAt, extended.body.expiresAt)).toBe(7200);
    expect((await h.post(`/v2/sandboxes/${sb.id}/extend`, { maxLifetimeSeconds: 7200 })).status).toBe(422);
    expect((await h.post(`/v2/sandboxes/${sb.id}/extend`, { maxLifetimeSeconds: 90000 })).status).toBe(422);
    await h.del(`/v2/sandboxes/${sb.id}`);
    expect((await h.post(`/v2/sandboxes/${sb.id}/extend`, { maxLifetimeSeconds: 8000 })).status).toBe(422);
  });

  test("while CREATING it counts from createdAt", async () => {
    const sb = await createdSandbox(h);
    const extended = (await h.post(`/v2/sandboxes/${sb.id}/extend`, { maxLifetimeSeconds: 4000 })).body;
    expect(seconds(sb.createdAt, extended.expiresAt)).toBe(4000);
  });
});

describe("delete", () => {
  test("204, TERMINATED with USER_REQUESTED, idempotent, still readable", async () => {
    const sb = await runningSandbox(h);
    await h.control.advance(5000);
    const response = await h.del(`/v2/sandboxes/${sb.id}`);
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    const gone = await get(sb.id);
    expect(gone).toMatchObject({ state: "TERMINATED", terminationReason: "USER_REQUESTED", terminatedAt: "2030-03-01T12:00:05.150Z" });
    await h.control.advance(5000);
    expect((await h.del(`/v2/sandboxes/${sb.id}`)).status).toBe(204);
    expect(await get(sb.id)).toMatchObject({ terminationReason: "USER_REQUESTED", terminatedAt: gone.terminatedAt });
  });
});

describe("expiry on the emulator clock", () => {
  test("idle timeout: TERMINATED with IDLE_TIMEOUT at idleExpiresAt", async () => {
    const sb = await runningSandbox(h, sandboxBody({ idleTimeoutSeconds: 90 }));
    await h.control.advance(89_000);
    expect((await get(sb.id)).state).toBe("RUNNING");
    await h.control.advance(1_000);
    expect(await get(sb.id)).toMatchObject({ state: "TERMINATED", terminationReason: "IDLE_TIMEOUT", terminatedAt: sb.idleExpiresAt });
    expect((await h.get("/v2/sandboxes")).body.sandboxes).toEqual([]);
  });

  test("maximum lifetime: TERMINATED with MAX_LIFETIME at expiresAt", async () => {
    await h.control.updateAccount("acct_dev", { maxIdleTimeoutSeconds: 7200 });
    const sb = await runningSandbox(h, sandboxBody({ idleTimeoutSeconds: 7200, maxLifetimeSeconds: 300 }));
    await h.control.advance(300_000);
    expect(await get(sb.id)).toMatchObject({ state: "TERMINATED", terminationReason: "MAX_LIFETIME", terminatedAt: sb.expiresAt });
  });

  test("account maximums come from the account", async () => {
    await h.control.updateAccount("acct_dev", { maxIdleTimeoutSeconds: 120, maxLifetimeSeconds: 600 });
    const sb = await createdSandbox(h);
    expect(sb).toMatchObject({ idleTimeoutSeconds: 120, maxLifetimeSeconds: 600 });
    const team = (await h.post("/v2/sandboxes", sandboxBody({ idleTimeoutSeconds: 7200 }), { key: KEYS.team })).body;
    expect(team.idleTimeoutSeconds).toBe(7200);
  });
});

describe("failure", () => {
  test("a start failure is FAILED with START_FAILED; DELETE then TERMINATED keeps the reason", async () => {
    await h.control.failNext("sandbox");
    const sb = await createdSandbox(h);
    await h.control.advance(100);
    const failed = await get(sb.id);
    expect(failed).toMatchObject({ state: "FAILED", terminationReason: "START_FAILED", startedAt: null, terminatedAt: "2030-03-01T12:00:00.100Z" });
    expect((await h.get("/v2/sandboxes")).body.sandboxes.map((s: { id: string }) => s.id)).toEqual([sb.id]);
    expect((await h.del(`/v2/sandboxes/${sb.id}`)).status).toBe(204);
    expect(await get(sb.id)).toMatchObject({ state: "TERMINATED", terminationReason: "START_FAILED" });
  });

  test("fail-start on a CREATING sandbox, and a container exit of a RUNNING one", async () => {
    const creating = await createdSandbox(h);
    await h.control.sandboxFailStart(creating.id);
    await h.control.advance(100);
    expect((await get(creating.id)).terminationReason).toBe("START_FAILED");
    const running = await runningSandbox(h);
    await h.control.sandboxExit(running.id);
    expect(await get(running.id)).toMatchObject({ state: "FAILED", terminationReason: "CONTAINER_EXITED", startedAt: running.startedAt });
  });
});
