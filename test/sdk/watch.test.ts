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

  describe("waits of one kind teach it when to poll first", () => {
    /**
     * A service whose pods run a set time after their wait starts, answering the list or a
     * single GET; `wait` counts the reads made from a wait's start to its end.
     */
    async function service() {
      const runsAt = new Map<string, number>();
      const statusOf = (id: string) => (Date.now() >= (runsAt.get(id) ?? 0) ? "RUNNING" : "PROVISIONING");
      const { server, client } = await serve(
        (req, res) => {
          if (req.path === "/v2/pods") return sendJson(res, 200, { pods: [...runsAt.keys()].map((id) => podResponse({ id, status: statusOf(id) })) });
          const id = req.path.split("/").pop()!;
          return sendJson(res, 200, podResponse({ id, status: statusOf(id) }));
        },
        { watch: { initialIntervalMs: 10, maxIntervalMs: 2000 } },
      );
      return async (id: string, runsAfterMs: number, expect?: string) => {
        const at = Date.now();
        runsAt.set(id, at + runsAfterMs);
        await client.podWatcher.waitFor(id, (p) => p.status === "RUNNING", { expect });
        const reads = server.requests.filter((r) => r.at >= at);
        return { reads: reads.length, firstReadAfterMs: reads[0]!.at - at };
      };
    }

    it("a second wait of the same kind is read first when the first one ended, not at the newcomer's pace", async () => {
      const wait = await service();
      const first = await wait("pod-a", 300, "PROVISIONING to RUNNING");
      // Learning: the usual pace, from 10 ms, growing by half each time nothing changed.
      expect(first.reads).toBeGreaterThanOrEqual(5);
      const second = await wait("pod-b", 300, "PROVISIONING to RUNNING");
      expect(second.firstReadAfterMs).toBeGreaterThanOrEqual(250);
      expect(second.reads).toBeLessThanOrEqual(2);
    });

    it("a wait of another kind, or of none, keeps the newcomer's pace", async () => {
      const wait = await service();
      await wait("pod-a", 300, "PROVISIONING to RUNNING");
      const other = await wait("pod-b", 300, "EXITED to RUNNING");
      expect(other.firstReadAfterMs).toBeLessThan(250);
      expect(other.reads).toBeGreaterThanOrEqual(5);
      const unnamed = await wait("pod-c", 300);
      expect(unnamed.firstReadAfterMs).toBeLessThan(250);
    });

    it("goes by the quickest recent wait: a slower one does not push the next newcomer's first read later", async () => {
      const wait = await service();
      await wait("pod-a", 100, "k");
      const slower = await wait("pod-b", 500, "k");
      expect(slower.reads).toBeGreaterThanOrEqual(3);
      const next = await wait("pod-c", 100, "k");
      expect(next.firstReadAfterMs).toBeLessThan(400);
      expect(next.reads).toBeLessThanOrEqual(2);
    });
  });
});
