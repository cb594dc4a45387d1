/**
 * A create the service accepted is never sent twice and never lost, whatever its answer looks
 * like: the public document's own example, a body that is not JSON, a body that fails the
 * schema but names the id, and one that cannot be read even by id.
 */
import type { ServerResponse } from "node:http";
import { ComputeClient, CreatedButUnreadableError, ResponseValidationError } from "../../sdk";
import { problem, sendJson, useLoopback, type Loopback, type SeenRequest } from "../helpers/loopback";
import { podResponse, sandboxResponse } from "../helpers/fixtures";
import { secondCopyOfSdkErrors } from "../helpers/second-copy";
import { documentExamples } from "./openapi-bodies";

const serve = useLoopback({ initialBackoffMs: 10, maxBackoffMs: 20 });

const PUBLIC_POD = documentExamples("Pod")[0].body;
const PUBLIC_VOLUME = documentExamples("NetworkVolume")[0].body;

type Route = (req: SeenRequest, res: ServerResponse) => unknown;

async function withService(route: Route, run: (client: ComputeClient, server: Loopback) => Promise<void>, extra: Record<string, unknown> = {}) {
  const { server, client } = await serve((req, res) => {
    res.setHeader("date", new Date().toUTCString());
    return route(req, res);
  }, extra);
  await run(client, server);
}

const posts = (server: Loopback) => server.requests.filter((r) => r.method === "POST");
const calls = (server: Loopback) => server.requests.map((r) => `${r.method} ${r.path}`);
const garbage = (res: ServerResponse) => {
  res.writeHead(201, { "content-type": "application/json" });
  res.end('{"id": "pod-9", "name": "tr'); // cut mid-body: not JSON, no readable id
};

describe("a pod create answered in the public document's shape", () => {
  it("returns the pod of the document's own example after exactly one POST", async () => {
    await withService(
      (req, res) => (req.method === "POST" ? sendJson(res, 201, PUBLIC_POD) : problem(res, 404, "no route")),
      async (client, server) => {
        const pod = await client.pods.create({ name: PUBLIC_POD.name, image: PUBLIC_POD.image, gpu: { id: PUBLIC_POD.gpu.id } });
        expect(pod).toMatchObject({ id: PUBLIC_POD.id, status: "PROVISIONING", cmd: [], entrypoint: [], gpu: { count: 1 } });
        expect(calls(server)).toEqual(["POST /v2/pods"]);
      },
    );
  });
});

describe("a create answered 2xx with a body that cannot be read", () => {
  it("reads the pod back once by the id the body names, and never POSTs again", async () => {
    const unreadable = { ...PUBLIC_POD, id: "pod-9", status: "HIBERNATING" };
    await withService(
      (req, res) => {
        if (req.method === "POST") return sendJson(res, 201, unreadable);
        if (req.path === "/v2/pods/pod-9") return sendJson(res, 200, { ...PUBLIC_POD, id: "pod-9" });
        problem(res, 404, "no route");
      },
      async (client, server) => {
        const pod = await client.pods.create({ name: "trainer", image: "img", gpu: { id: "A" } });
        expect(pod.id).toBe("pod-9");
        expect(calls(server)).toEqual(["POST /v2/pods", "GET /v2/pods/pod-9"]);
      },
    );
  });

  it("throws CreatedButUnreadableError carrying the id when the read-back cannot be read either", async () => {
    const unreadable = { ...PUBLIC_POD, id: "pod-9", status: "HIBERNATING" };
    await withService(
      (req, res) => sendJson(res, req.method === "POST" ? 201 : 200, unreadable),
      async (client, server) => {
        const error = await client.pods.create({ name: "trainer", image: "img", gpu: { id: "A" } }).catch((e) => e);
        expect(error).toBeInstanceOf(CreatedButUnreadableError);
        expect(error).toBeInstanceOf(ResponseValidationError);
        expect(error.resourceId).toBe("pod-9");
        expect(error.violations).toEqual([expect.stringMatching(/^status: must be one of/), expect.stringMatching(/^status: must be one of/)]);
        expect(error.message).toContain("pod-9");
        expect(calls(server)).toEqual(["POST /v2/pods", "GET /v2/pods/pod-9"]);
      },
    );
  });

  it("finds a pod whose answer was not JSON by name, without a second POST", async () => {
    const created = podResponse({ id: "pod-9", name: "trainer", createdAt: new Date().toISOString() });
    await withService(
      (req, res) => (req.method === "POST" ? garbage(res) : sendJson(res, 200, { pods: [created] })),
      async (client, server) => {
        await expect(client.pods.create({ name: "trainer", image: "img", gpu: { id: "A" } })).resolves.toMatchObject({ id: "pod-9" });
        expect(calls(server)).toEqual(["POST /v2/pods", "GET /v2/pods"]);
      },
    );
  });

  it("reports the unreadable answer, still without a second POST, when the pod cannot be found", async () => {
    await withService(
      (req, res) => (req.method === "POST" ? garbage(res) : sendJson(res, 200, { pods: [] })),
      async (client, server) => {
        const error = await client.pods.create({ name: "trainer", image: "img", gpu: { id: "A" } }).catch((e) => e);
        expect(error).toBeInstanceOf(ResponseValidationError);
        expect(error).not.toBeInstanceOf(CreatedButUnreadableError);
        expect(error.violations).toEqual(["(body): is not JSON"]);
        expect(error.message).not.toContain("pod-9"); // the body is never quoted: it may hold secrets
        expect(posts(server)).toHaveLength(1);
      },
    );
  });

  it("reads a network volume back by id too", async () => {
    const { size: _size, ...withoutSize } = PUBLIC_VOLUME;
    await withService(
      (req, res) => (req.method === "POST" ? sendJson(res, 201, withoutSize) : sendJson(res, 200, PUBLIC_VOLUME)),
      async (client, server) => {
        const volume = await client.networkVolumes.create({ name: PUBLIC_VOLUME.name, dataCenter: PUBLIC_VOLUME.dataCenter, size: PUBLIC_VOLUME.size });
        expect(volume).toMatchObject({ id: PUBLIC_VOLUME.id, size: PUBLIC_VOLUME.size });
        expect(calls(server)).toEqual(["POST /v2/network-volumes", `GET /v2/network-volumes/${PUBLIC_VOLUME.id}`]);
      },
    );
  });
});

describe("every create family reads an unreadable answer back by id", () => {
  const sandbox = sandboxResponse({ id: "sb-9", name: "scratch", state: "CREATING", image: "python:3.12-slim", compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10, costPerHr: 0.1 } });
  const endpoint = documentExamples("Endpoint")[0].body;
  const families = [
    {
      family: "sandboxes",
      good: sandbox,
      create: (c: ComputeClient) => c.sandboxes.create({ name: "scratch", image: "python:3.12-slim", compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 } }),
      path: "/v2/sandboxes",
    },
    {
      family: "serverless endpoints",
      good: endpoint,
      create: (c: ComputeClient) =>
        c.serverless.create({ name: endpoint.name, image: endpoint.image, type: "QUEUE", scaling: { type: "QUEUE_DELAY", queueDelay: 4 }, gpu: { pools: ["ADA_24"] } }),
      path: "/v2/serverless",
    },
  ];

  it.each(families.map((f) => [f.family, f] as const))("%s", async (_family, f) => {
    const { createdAt: _createdAt, ...unreadable } = f.good; // both shapes require createdAt
    await withService(
      (req, res) => (req.method === "POST" ? sendJson(res, 201, unreadable) : sendJson(res, 200, f.good)),
      async (client, server) => {
        await expect(f.create(client)).resolves.toMatchObject({ id: f.good.id });
        expect(calls(server)).toEqual([`POST ${f.path}`, `GET ${f.path}/${f.good.id}`]);
      },
    );
  });
});

describe("recovery after a lost answer never resends over an item it cannot read", () => {
  it("stops with the reason when the list holds an unreadable pod of the same name", async () => {
    await withService(
      (req, res) => {
        if (req.method === "POST") return problem(res, 503, "upstream timeout");
        sendJson(res, 200, { pods: [podResponse({ id: "pod-9", name: "trainer", status: "HIBERNATING", createdAt: new Date().toISOString() })] });
      },
      async (client, server) => {
        const error = await client.pods.create({ name: "trainer", image: "img", gpu: { id: "A" } }).catch((e) => e);
        expect(error).toBeInstanceOf(ResponseValidationError);
        expect(error.violations).toEqual([expect.stringMatching(/^pods\[0\]\.status: must be one of/)]);
        expect(posts(server)).toHaveLength(1);
      },
    );
  });
});

describe("status polling and a pod the list cannot read", () => {
  it("gives that pod's waiter the reason, not 'no longer exists', and the others their pods", async () => {
    await withService(
      (req, res) => {
        const odd = podResponse({ id: "pod-b", status: "HIBERNATING" });
        if (req.path === "/v2/pods") return sendJson(res, 200, { pods: [podResponse({ id: "pod-a", status: "RUNNING" }), odd] });
        if (req.path === "/v2/pods/pod-b") return sendJson(res, 200, odd);
        problem(res, 404, "no route");
      },
      async (client) => {
        const [a, b] = await Promise.allSettled([
          client.podWatcher.waitFor("pod-a", (p) => p.status === "RUNNING"),
          client.podWatcher.waitFor("pod-b", (p) => p.status === "RUNNING"),
        ]);
        expect(a).toMatchObject({ status: "fulfilled", value: { id: "pod-a" } });
        expect(b.status).toBe("rejected");
        const reason = (b as PromiseRejectedResult).reason;
        expect(reason).toBeInstanceOf(ResponseValidationError);
        expect(reason.violations).toEqual([expect.stringMatching(/^status: must be one of/)]);
      },
      { watch: { initialIntervalMs: 5, maxIntervalMs: 10 } },
    );
  });
});

describe("CreatedButUnreadableError across two copies of the SDK", () => {
  it("is recognised by instanceof when thrown by another copy", () => {
    const other = secondCopyOfSdkErrors();
    const foreign = new other.CreatedButUnreadableError({ method: "POST", path: "/v2/pods" }, "pod-9", ["status: must be one of"]);
    expect(other.CreatedButUnreadableError).not.toBe(CreatedButUnreadableError);
    expect(foreign).toBeInstanceOf(CreatedButUnreadableError);
    expect(foreign).toBeInstanceOf(ResponseValidationError);
    expect(foreign.resourceId).toBe("pod-9");
  });
});

describe("a create whose name carries an owner mark, when the answer is lost", () => {
  const marked = `${PUBLIC_VOLUME.name}~env/dev~0123456789abcdef01`;
  /** A service that creates the volume and then drops the connection without answering. */
  const landsThenDrops = (listed: Array<Record<string, unknown>>): Route => (req, res) => {
    if (req.method === "POST") {
      listed.push({ ...PUBLIC_VOLUME, name: marked });
      return res.destroy();
    }
    return sendJson(res, 200, { networkVolumes: listed });
  };

  it("finds what it made by that name and never POSTs again", async () => {
    const listed: Array<Record<string, unknown>> = [];
    await withService(landsThenDrops(listed), async (client, server) => {
      const volume = await client.networkVolumes.create({ name: marked, dataCenter: PUBLIC_VOLUME.dataCenter, size: PUBLIC_VOLUME.size }, { uniqueName: true });
      expect(volume).toMatchObject({ id: PUBLIC_VOLUME.id, name: marked });
      expect(posts(server)).toHaveLength(1);
    });
  });

  it("without such a name, reports the lost answer rather than risk a second volume", async () => {
    const listed: Array<Record<string, unknown>> = [];
    await withService(landsThenDrops(listed), async (client, server) => {
      await expect(client.networkVolumes.create({ name: marked, dataCenter: PUBLIC_VOLUME.dataCenter, size: PUBLIC_VOLUME.size })).rejects.toThrow();
      expect(posts(server)).toHaveLength(1);
    });
  });
});
