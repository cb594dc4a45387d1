import { NotFoundError } from "../../sdk";
import { sendJson, useLoopback } from "../helpers/loopback";
import { podResponse } from "../helpers/fixtures";

const serve = useLoopback();

describe("shared status polling", () => {
  it("answers many waiting pods with one list request per tick", async () => {
    let listCalls = 0;
    const { server, client } = await serve((req, res) => {
      if (req.path === "/v2/pods") {
        listCalls += 1;
        const status = listCalls >= 3 ? "RUNNING" : "PROVISIONING";
        return sendJson(res, 200, { pods: Array.from({ length: 10 }, (_, i) => podResponse({ id: `pod-${i}`, status })) });
      }
      sendJson(res, 404, { title: "Not Found", status: 404, detail: "x" });
    }, { watch: { initialIntervalMs: 10, maxIntervalMs: 20 } });
    const pods = await Promise.all(Array.from({ length: 10 }, (_, i) => client.podWatcher.waitFor(`pod-${i}`, (p) => p.status === "RUNNING")));
    expect(pods.every((p) => p.status === "RUNNING")).toBe(true);
    expect(server.requests.filter((r) => r.path === "/v2/pods")).toHaveLength(3);
    expect(server.requests).toHaveLength(3); // no per-pod GETs at all
  });

  it("reports a pod that disappears as NotFoundError after a short tolerance", async () => {
    const { server, client } = await serve((req, res) => sendJson(res, 404, { title: "Not Found", status: 404, detail: "gone" }), { watch: { initialIntervalMs: 5, maxIntervalMs: 5, missingTolerance: 2 } });
    await expect(client.podWatcher.waitFor("pod-x", () => true)).rejects.toBeInstanceOf(NotFoundError);
    expect(server.requests).toHaveLength(3);
  });
});
