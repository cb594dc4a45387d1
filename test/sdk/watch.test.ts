import { ComputeClient, NotFoundError } from "../../sdk";
import { sendJson, startLoopback, TEST_KEY } from "../helpers/loopback";
import { podResponse } from "../helpers/fixtures";

describe("shared status polling", () => {
  it("answers many waiting pods with one list request per tick", async () => {
    let listCalls = 0;
    const server = await startLoopback((req, res) => {
      if (req.path === "/v2/pods") {
        listCalls += 1;
        const status = listCalls >= 3 ? "RUNNING" : "PROVISIONING";
        return sendJson(res, 200, { pods: Array.from({ length: 10 }, (_, i) => podResponse({ id: `pod-${i}`, status })) });
      }
      sendJson(res, 404, { title: "Not Found", status: 404, detail: "x" });
    });
    const client = new ComputeClient({ baseUrl: server.url, apiKey: TEST_KEY, env: {}, watch: { initialIntervalMs: 10, maxIntervalMs: 20 } });
    try {
      const pods = await Promise.all(Array.from({ length: 10 }, (_, i) => client.podWatcher.waitFor(`pod-${i}`, (p) => p.status === "RUNNING")));
      expect(pods.every((p) => p.status === "RUNNING")).toBe(true);
      expect(server.requests.filter((r) => r.path === "/v2/pods")).toHaveLength(3);
      expect(server.requests).toHaveLength(3); // no per-pod GETs at all
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("reports a pod that disappears as NotFoundError after a short tolerance", async () => {
    const server = await startLoopback((req, res) => sendJson(res, 404, { title: "Not Found", status: 404, detail: "gone" }));
    const client = new ComputeClient({ baseUrl: server.url, apiKey: TEST_KEY, env: {}, watch: { initialIntervalMs: 5, maxIntervalMs: 5, missingTolerance: 2 } });
    try {
      await expect(client.podWatcher.waitFor("pod-x", () => true)).rejects.toBeInstanceOf(NotFoundError);
      expect(server.requests).toHaveLength(3);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
