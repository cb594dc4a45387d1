/** Keys, scopes, expiry, console sessions with X-Team-Id, team keys, and account isolation. */
import { freshFixture, gpuPod, KEYS, sandboxBody, useEmulator } from "./harness";

const h = useEmulator({ freezeClock: true }, freshFixture());

const podIds = async (key: string, headers?: Record<string, string>) =>
  ((await h.get("/v2/pods?includeClusterPods=true", { key, headers })).body.pods as Array<{ id: string }>).map((p) => p.id);

describe("401", () => {
  test.each([
    ["no Authorization header", undefined],
    ["a non-Bearer scheme", "Basic ZGV2OmRldg=="],
    ["an unknown key", "Bearer cs_dev_0000000000000000"],
    ["an expired key", `Bearer ${KEYS.devExpired}`],
  ])("%s is 401 with a problem body", async (_what, authorization) => {
    const response = await h.get("/v2/pods", { key: null, headers: authorization ? { Authorization: authorization } : {} });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(response.body).toMatchObject({ status: 401, title: "Unauthorized", detail: expect.any(String) });
  });
});

describe("403 scopes", () => {
  test("a read-only key reads but cannot change", async () => {
    expect((await h.get("/v2/pods", { key: KEYS.devReadOnly })).status).toBe(200);
    const write = await h.post("/v2/pods", gpuPod(), { key: KEYS.devReadOnly });
    expect(write.status).toBe(403);
    expect(write.body.detail).toMatch(/read-only access to pods/);
  });

  test("a key without the sandboxes scope gets 403 saying so", async () => {
    const response = await h.get("/v2/sandboxes", { key: KEYS.devNoSandboxes });
    expect(response.status).toBe(403);
    expect(response.body.detail).toBe("This API key has no access to sandboxes");
    expect((await h.get("/v2/pods", { key: KEYS.devNoSandboxes })).status).toBe(200);
  });
});

describe("acting account", () => {
  test("a team key acts for its team", async () => {
    expect(await podIds(KEYS.team)).toEqual(["pod_team_notebook"]);
    const created = await h.post("/v2/pods", gpuPod(), { key: KEYS.team });
    expect(created.status).toBe(201);
    expect(await podIds(KEYS.team)).toContain(created.body.id);
    expect(await podIds(KEYS.dev)).not.toContain(created.body.id);
  });

  test("a console session honours X-Team-Id for a team member", async () => {
    expect(await podIds(KEYS.sessionDev, { "X-Team-Id": "team_ml" })).toEqual(["pod_team_notebook"]);
    expect(await podIds(KEYS.sessionDev)).toEqual(expect.arrayContaining(["pod_ray_head", "pod_ray_worker1"]));
  });

  test("X-Team-Id is ignored for a non-member and for API keys", async () => {
    expect(await podIds(KEYS.sessionOther, { "X-Team-Id": "team_ml" })).toEqual(["pod_other_api"]);
    expect(await podIds(KEYS.dev, { "X-Team-Id": "team_ml" })).not.toContain("pod_team_notebook");
  });
});

describe("isolation: another account's resources are 404, never 403", () => {
  test("pods", async () => {
    expect((await h.get("/v2/pods/pod_other_api")).status).toBe(404);
    expect((await h.patch("/v2/pods/pod_other_api", { name: "mine" })).status).toBe(404);
    expect((await h.post("/v2/pods/pod_other_api/action", { action: "stop" })).status).toBe(404);
    expect((await h.del("/v2/pods/pod_other_api")).status).toBe(404);
    expect((await h.get("/v2/pods/pod_other_api/logs")).status).toBe(404);
    expect((await h.get("/v2/pods/pod_other_api", { key: KEYS.other })).status).toBe(200);
  });

  test("templates, network volumes and sandboxes", async () => {
    expect((await h.get("/v2/templates/tpl_other_private")).status).toBe(404);
    expect((await h.post("/v2/pods", gpuPod({ image: undefined, templateId: "tpl_other_private" }))).status).toBe(404);
    expect((await h.get("/v2/network-volumes/vol_other_ca")).status).toBe(404);
    const volumes = (await h.get("/v2/network-volumes")).body.networkVolumes.map((v: { id: string }) => v.id);
    expect(volumes).toEqual(["vol_dev_tx", "vol_dev_ro"]);

    const theirs = await h.post("/v2/sandboxes", sandboxBody(), { key: KEYS.other });
    expect(theirs.status).toBe(201);
    expect((await h.get(`/v2/sandboxes/${theirs.body.id}`)).status).toBe(404);
    expect((await h.del(`/v2/sandboxes/${theirs.body.id}`)).status).toBe(404);
    expect((await h.get("/v2/sandboxes")).body.sandboxes).toEqual([]);
  });
});
