/**
 * Registry credentials (`/v2/registries`): write-only secrets, isolation between accounts,
 * scopes, the 409 while something still pulls with one, and what the control plane and the
 * state file keep of them.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useScratch } from "../helpers/scratch";
import { createdPod, freshFixture, gpuPod, KEYS, useEmulator, withEmulator } from "./harness";

const h = useEmulator({ freezeClock: true }, freshFixture());
const { tempDir } = useScratch("compute-registries-");

const PASSWORD = "correct-horse-battery-staple";
const credential = (name = "dockerhub-private") => ({ name, username: "me", password: PASSWORD });
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function createdRegistry(name?: string, key?: string): Promise<{ id: string; name: string }> {
  const response = await h.post("/v2/registries", credential(name), { key });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

describe("create, read, list, delete", () => {
  test("answers carry id and name only: the username and password are never returned", async () => {
    const created = await h.post("/v2/registries", credential());
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), name: "dockerhub-private" });
    expect((await h.get(`/v2/registries/${created.body.id}`)).body).toEqual(created.body);
    const list = (await h.get("/v2/registries")).body;
    expect(list).toEqual({ registries: [{ id: "reg_dev_ghcr", name: "ghcr-dev-example" }, created.body] });
    expect(JSON.stringify(list)).not.toContain(PASSWORD);
  });

  test("delete answers 204, then the credential is gone", async () => {
    const { id } = await createdRegistry();
    expect((await h.del(`/v2/registries/${id}`)).status).toBe(204);
    expect((await h.get(`/v2/registries/${id}`)).status).toBe(404);
    expect((await h.del(`/v2/registries/${id}`)).status).toBe(404);
  });

  test("the body is validated: every violation listed (422)", async () => {
    const response = await h.post("/v2/registries", { name: "", password: "", server: "ghcr.io" });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual(
      expect.arrayContaining([expect.stringMatching(/^name: /), expect.stringMatching(/^username: is required/), expect.stringMatching(/^password: /), "server: unknown property"]),
    );
    expect((await h.get("/v2/registries")).body.registries).toHaveLength(1);
  });

  test("no update: a changed credential is a new one (405)", async () => {
    expect((await h.patch("/v2/registries/reg_dev_ghcr", { password: "new" })).status).toBe(405);
  });
});

describe("isolation and scopes", () => {
  test("another account's credential is 404, never listed, never deletable", async () => {
    const mine = await createdRegistry();
    expect((await h.get(`/v2/registries/${mine.id}`, { key: KEYS.other })).status).toBe(404);
    expect((await h.del(`/v2/registries/${mine.id}`, { key: KEYS.other })).status).toBe(404);
    expect((await h.get("/v2/registries", { key: KEYS.other })).body.registries).toEqual([{ id: "reg_other_hub", name: "dockerhub-other" }]);
    expect((await h.get("/v2/registries/reg_other_hub")).status).toBe(404);
    expect((await h.get(`/v2/registries/${mine.id}`)).status).toBe(200);
  });

  test("a read-only key reads but cannot create; a key without the family gets 403", async () => {
    expect((await h.get("/v2/registries", { key: KEYS.devReadOnly })).status).toBe(200);
    const write = await h.post("/v2/registries", credential(), { key: KEYS.devReadOnly });
    expect(write.status).toBe(403);
    expect(write.body.detail).toBe("This API key has read-only access to registries");
    expect((await h.get("/v2/registries", { key: KEYS.devNoSandboxes })).status).toBe(403);
  });
});

describe("a credential a pod or an endpoint pulls with cannot be deleted (400 naming them); templates lose it", () => {
  test("templates do not hold it: the account's templates that named it lose the reference (public OpenAPI)", async () => {
    expect((await h.del("/v2/registries/reg_dev_ghcr")).status).toBe(204);
    for (const id of ["tpl_dev_trainer", "tpl_dev_embedder"]) expect((await h.get(`/v2/templates/${id}`)).body.registry).toBeNull();
  });

  test("by a live pod, until the pod is terminated", async () => {
    const { id } = await createdRegistry();
    const pod = await createdPod(h, gpuPod({ registry: id }));
    const response = await h.del(`/v2/registries/${id}`);
    expect(response.status).toBe(400);
    expect(response.body.detail).toContain(`pod ${pod.id}`);
    // A stopped pod pulls again when started: still in use.
    await h.control.advance(250);
    await h.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    expect((await h.del(`/v2/registries/${id}`)).status).toBe(400);
    expect((await h.del(`/v2/pods/${pod.id}`)).status).toBe(204);
    expect((await h.get(`/v2/pods/${pod.id}`)).body.status).toBe("TERMINATED");
    expect((await h.del(`/v2/registries/${id}`)).status).toBe(204);
  });

  test("by an endpoint, until it points elsewhere; every referrer is named at once", async () => {
    const { id } = await createdRegistry();
    const endpoint = (
      await h.post("/v2/serverless", { name: "ep", type: "QUEUE", scaling: { type: "QUEUE_DELAY", queueDelay: 1 }, image: "i", registry: id, gpu: { pools: ["ADA_24"] } })
    ).body;
    const template = (await h.post("/v2/templates", { name: "t", image: "i", registry: id })).body;
    const pod = await createdPod(h, gpuPod({ registry: id }));
    const response = await h.del(`/v2/registries/${id}`);
    expect(response.status).toBe(400);
    expect(response.body.detail).toContain(`pod ${pod.id}`);
    expect(response.body.detail).toContain(`serverless endpoint ${endpoint.id}`);
    expect(response.body.detail).not.toContain(template.id);
    await h.patch(`/v2/serverless/${endpoint.id}`, { registry: null });
    await h.del(`/v2/pods/${pod.id}`);
    expect((await h.del(`/v2/registries/${id}`)).status).toBe(204);
    expect((await h.get(`/v2/templates/${template.id}`)).body.registry).toBeNull();
  });

  test("another account's records naming the same id do not hold it", async () => {
    const { id } = await createdRegistry();
    expect((await h.post("/v2/templates", { name: "t", image: "i", registry: id }, { key: KEYS.other })).status).toBe(201);
    expect((await h.del(`/v2/registries/${id}`)).status).toBe(204);
  });
});

describe("what the emulator keeps", () => {
  test("the control plane's state shows each credential with its password's SHA-256, never the password", async () => {
    const { id } = await createdRegistry();
    const state = await h.control.state();
    expect(state.registries).toEqual(
      expect.arrayContaining([{ id, accountId: "acct_dev", name: "dockerhub-private", username: "me", passwordSha256: sha256(PASSWORD) }]),
    );
    expect(state.registries.map((r: { id: string }) => r.id)).toEqual(["reg_dev_ghcr", "reg_other_hub", id]);
    expect(JSON.stringify(state)).not.toContain(PASSWORD);
  });

  test("a reset goes back to the fixture's credentials", async () => {
    const { id } = await createdRegistry();
    await h.control.reset();
    expect((await h.get(`/v2/registries/${id}`)).status).toBe(404);
    expect((await h.get("/v2/registries/reg_dev_ghcr")).status).toBe(200);
  });

  test("credentials survive a restart; the state file holds no password", async () => {
    const dataDir = tempDir();
    const created = await withEmulator({ dataDir }, async (first) => (await first.post("/v2/registries", credential("kept"))).body);
    expect(readFileSync(join(dataDir, "state.json"), "utf8")).not.toContain(PASSWORD);
    await withEmulator({ dataDir }, async (second) => {
      expect((await second.get(`/v2/registries/${created.id}`)).body).toEqual(created);
      expect((await second.control.state()).registries).toContainEqual(expect.objectContaining({ id: created.id, passwordSha256: sha256(PASSWORD) }));
    });
  });

  test("a state file from before registry credentials starts from its fixture's", async () => {
    const dataDir = tempDir();
    await withEmulator({ dataDir }, async (first) => first.post("/v2/templates", { name: "kept", image: "i" }));
    const file = join(dataDir, "state.json");
    const state = JSON.parse(readFileSync(file, "utf8"));
    delete state.modules.registries;
    writeFileSync(file, JSON.stringify(state));
    await withEmulator({ dataDir }, async (second) => {
      expect((await second.get("/v2/registries")).body.registries).toEqual([{ id: "reg_dev_ghcr", name: "ghcr-dev-example" }]);
      expect((await second.get("/v2/templates")).body.templates.map((t: { name: string }) => t.name)).toContain("kept");
    });
  });
});
