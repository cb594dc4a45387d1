/**
 * The services of running pods answer for real (emulator/services): every port a RUNNING pod
 * publishes is a listener on 127.0.0.1, `ssh.direct` leads to an SSH banner, an http port to a
 * web server, a tcp port to a server that holds the line; before its services are up (or in mode
 * `never`) a connection is reset before any data; per-pod and next-pod settings; listeners close
 * with their run; the log lines and events of a service coming up. The clock is frozen, so every
 * instant is exact.
 */
import { request } from "node:http";
import { connect } from "node:net";
import { LISTENERS_KEPT_READY } from "../../emulator/services/host";
import { eventually } from "../helpers/eventually";
import { backfillOf, createdPod, freshFixture, gpuPod, runningPod, useEmulator, withEmulator, type Harness } from "./harness";

// Each test starts at 08:00:00 with the fast profile's serviceStartMs (0): a pod created then is RUNNING at .200, read at .250.
const h = useEmulator({ freezeClock: "2030-05-01T08:00:00Z" }, async (harness) => {
  await harness.control.setTimings({ serviceStartMs: 0 });
  await freshFixture("2030-05-01T08:00:00Z")(harness);
  await harness.control.clearServiceEvents();
});

const BANNER = "SSH-2.0-OpenSSH_9.6 compute-emulator\r\n";
const PORTS = ["22/tcp", "8000/http", "9000/tcp"];
const servicePod = (overrides: Record<string, unknown> = {}) => gpuPod({ ports: PORTS, startSsh: true, ...overrides });

interface Attempt {
  /** What the client saw: refused (nothing listens), reset or closed by the server, or still open when it hung up. */
  outcome: "refused" | "reset" | "closed" | "open";
  data: string;
}

/**
 * Connects and waits for what the server does: a whole line (a banner), the end of the
 * connection, a reset, a refusal; up to 5 s, then "open". Only a caller that expects silence
 * gives `silentForMs`: the time without a byte after which the port counts as open and silent
 * (a late byte can then only make "open" of what was to be "open": no real-time window decides
 * any other outcome, however loaded the machine).
 */
function attempt(port: number, silentForMs?: number): Promise<Attempt> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let data = "";
    let settled = false;
    let watch: NodeJS.Timeout | undefined;
    const finish = (outcome: Attempt["outcome"]) => {
      if (settled) return;
      settled = true;
      clearTimeout(watch);
      clearTimeout(cap);
      socket.destroy();
      resolve({ outcome, data });
    };
    // Bounded however the connect goes.
    const cap = setTimeout(() => finish("open"), 5000);
    // After the watch, one more turn of the event loop: a reply already received (a timer delayed
    // by a busy loop runs before its I/O) is read before the attempt is called silent.
    if (silentForMs !== undefined) socket.on("connect", () => (watch = setTimeout(() => setImmediate(() => finish("open")), silentForMs)));
    socket.on("data", (chunk: Buffer) => {
      data += chunk.toString("latin1");
      if (data.endsWith("\n")) finish("open");
    });
    socket.on("error", (error: NodeJS.ErrnoException) => finish(error.code === "ECONNREFUSED" ? "refused" : "reset"));
    socket.on("end", () => finish("closed"));
  });
}

/** Accepted, then ended by the server before a single byte: nothing serves the port yet. */
const notServing = (a: Attempt) => (a.outcome === "reset" || a.outcome === "closed") && a.data === "";

interface HttpAnswer {
  status: number;
  contentType: string | undefined;
  body: string;
  date?: string;
}

/** A bare GET on a fresh connection; rejects with the socket's error (a reset) as a client would. */
function httpGet(port: number, path = "/"): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false, timeout: 2000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: res.headers["content-type"], body, date: res.headers.date }));
    });
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", reject);
    req.end();
  });
}

const get = async (id: string) => (await h.get(`/v2/pods/${id}`)).body;

/** The public port of `spec` in the pod's answer. */
function publicOf(pod: any, spec: string): number {
  const [port, type] = spec.split("/");
  const mapping = pod.runtime.ports.find((p: { private: number; type: string }) => p.private === Number(port) && p.type === type);
  return mapping.public;
}

/** Creates a service pod, runs it and returns its answer and the public port of each of its ports. */
async function running(harness: Harness = h, body = servicePod()) {
  const pod = await runningPod(harness, body);
  return { pod, ssh: publicOf(pod, "22/tcp"), web: publicOf(pod, "8000/http"), tcp: publicOf(pod, "9000/tcp") };
}

describe("what a running pod publishes", () => {
  test("every port, http and tcp alike, is a listener on 127.0.0.1; ssh.direct names the 22/tcp one", async () => {
    const { pod, ssh } = await running();
    expect(pod.runtime.ports).toEqual([
      { private: 22, public: expect.any(Number), type: "tcp", ip: "127.0.0.1" },
      { private: 8000, public: expect.any(Number), type: "http", ip: "127.0.0.1" },
      { private: 9000, public: expect.any(Number), type: "tcp", ip: "127.0.0.1" },
    ]);
    expect(new Set(pod.runtime.ports.map((p: { public: number }) => p.public)).size).toBe(3);
    expect(pod.ssh.direct).toEqual({ host: "127.0.0.1", port: ssh, username: "root", command: `ssh root@127.0.0.1 -p ${ssh} -i ~/.ssh/id_ed25519` });
  });

  test("the ports stay the same on every read while the run lasts: get, list, later", async () => {
    const { pod } = await running();
    await h.control.advance(30_000);
    expect((await get(pod.id)).runtime.ports).toEqual(pod.runtime.ports);
    const listed = (await h.get("/v2/pods")).body.pods.find((p: { id: string }) => p.id === pod.id);
    expect(listed.runtime.ports).toEqual(pod.runtime.ports);
    expect(listed.ssh.direct).toEqual(pod.ssh.direct);
  });

  test("a pod not yet RUNNING publishes nothing; a cluster's primary names its real SSH listener", async () => {
    const created = await createdPod(h, servicePod());
    expect(created.runtime).toBeNull();
    expect(created.ssh.direct).toBeNull();
    const cluster = (await h.get("/v2/clusters/clu_dev_ray")).body;
    expect(cluster.primary.sshEndpoint).toMatch(/^127\.0\.0\.1:\d+$/);
    const port = Number(cluster.primary.sshEndpoint.split(":")[1]);
    expect((await attempt(port)).data).toBe(BANNER);
  });

  test("many pods read at once: a port not bound yet is null, never one nothing listens on, and bound a moment later", async () => {
    const ids: string[] = [];
    // Three ports each: more ports than the listeners kept ready.
    const pods = Math.floor(LISTENERS_KEPT_READY / 3) + 2;
    for (let i = 0; i < pods; i++) ids.push((await createdPod(h, servicePod({ name: `many-${i}` }))).id);
    await h.control.advance(250);
    const ports = async () => ((await h.get("/v2/pods")).body.pods as any[]).filter((p) => ids.includes(p.id)).flatMap((p) => p.runtime.ports);
    const first = await ports();
    expect(first).toHaveLength(pods * 3);
    expect(first.some((p) => p.public === null)).toBe(true); // more than the listeners kept ready
    for (const mapping of first) {
      if (mapping.public === null) expect(mapping.ip).toBeNull();
      else expect((await attempt(mapping.public, 20)).outcome).not.toBe("refused");
    }
    const later = await eventually("every port bound", ports, { until: (all) => all.every((p) => p.public !== null), timeoutMs: 3000 });
    for (const mapping of first) if (mapping.public !== null) expect(later).toContainEqual(mapping);
  });
});

describe("what answers once the services are up", () => {
  test("22/tcp sends an SSH banner and holds the line; http answers 200 JSON on any path; another tcp port accepts and holds", async () => {
    const { ssh, web, tcp } = await running();
    expect(await attempt(ssh)).toEqual({ outcome: "open", data: BANNER });
    const answer = await httpGet(web, "/health?deep=1");
    expect(answer).toEqual({ status: 200, contentType: "application/json", body: '{"status":"ok"}', date: "Wed, 01 May 2030 08:00:00 GMT" });
    expect((await httpGet(web, "/")).status).toBe(200);
    expect(await attempt(tcp, 100)).toEqual({ outcome: "open", data: "" });
  });

  test("before the services are up a connection is reset before any data; they answer from the exact instant", async () => {
    await h.control.setTimings({ serviceStartMs: 3000 });
    const { pod, ssh, web, tcp } = await running();
    for (const port of [ssh, tcp]) expect(notServing(await attempt(port))).toBe(true);
    await expect(httpGet(web)).rejects.toThrow();
    expect((await h.control.podService(pod.id)).upAt).toBe("2030-05-01T08:00:03.200Z");
    await h.control.advance(2949);
    expect(notServing(await attempt(ssh))).toBe(true);
    await h.control.advance(1);
    expect((await attempt(ssh)).data).toBe(BANNER);
    expect((await httpGet(web)).status).toBe(200);
    expect((await attempt(tcp, 100)).outcome).toBe("open");
  });

  test("a pod's own delay (a slow service) counts from RUNNING and wins over serviceStartMs", async () => {
    const created = await createdPod(h, servicePod());
    await h.control.setPodService(created.id, { mode: "normal", delayMs: 5000 });
    await h.control.advance(200);
    const ssh = publicOf(await get(created.id), "22/tcp");
    expect(notServing(await attempt(ssh))).toBe(true);
    await h.control.advance(5000);
    expect((await attempt(ssh)).data).toBe(BANNER);
  });

  test("never: no service ever answers; normal fixes it from that moment", async () => {
    const { pod, ssh, web } = await running();
    expect(await h.control.setPodService(pod.id, { mode: "never" })).toMatchObject({ podId: pod.id, mode: "never", delayMs: null, upAt: null });
    await h.control.advance(600_000);
    expect(notServing(await attempt(ssh))).toBe(true);
    await expect(httpGet(web)).rejects.toThrow();
    const fixed = await h.control.setPodService(pod.id, { mode: "normal" });
    expect(fixed.upAt).toBe((await h.control.clock()).now);
    expect((await attempt(ssh)).data).toBe(BANNER);
    expect((await httpGet(web)).status).toBe(200);
  });

  test("unavailable: http answers 503, ssh and tcp as usual; normal gives 200 on the next request", async () => {
    const { pod, ssh, web, tcp } = await running();
    await h.control.setPodService(pod.id, { mode: "unavailable" });
    expect(await httpGet(web)).toMatchObject({ status: 503, contentType: "application/json", body: '{"status":"unavailable"}' });
    expect((await attempt(ssh)).data).toBe(BANNER);
    expect((await attempt(tcp, 100)).outcome).toBe("open");
    await h.control.advance(1000);
    await h.control.setPodService(pod.id, { mode: "normal" });
    expect((await httpGet(web)).status).toBe(200);
    // The events say when HTTP began to answer 200: at the switch, not when the service came up.
    // (The sweep may have noted it up as normal at .200, before the first switch.)
    const http = (await h.control.serviceEvents()).filter((e) => e.podId === pod.id && e.port === "8000/http");
    expect(http.slice(-2).map((e) => [e.mode, e.time])).toEqual([
      ["unavailable", "2030-05-01T08:00:00.250Z"],
      ["normal", "2030-05-01T08:00:01.250Z"],
    ]);
  });

  test("services/next: the next `count` pods created take the settings, in creation order, then no more", async () => {
    expect(await h.control.setNextServices({ mode: "unavailable", count: 2 })).toEqual({ pending: 2, mode: "unavailable", delayMs: null });
    const pods = [];
    for (let i = 0; i < 3; i++) pods.push(await createdPod(h, servicePod({ name: `next-${i}` })));
    await h.control.advance(250);
    const statuses = [];
    for (const created of pods) statuses.push((await httpGet(publicOf(await get(created.id), "8000/http"))).status);
    expect(statuses).toEqual([503, 503, 200]);
    expect((await h.control.podService(pods[2].id)).mode).toBe("normal");
    expect(await h.control.setNextServices({ mode: "never", delayMs: 100 })).toEqual({ pending: 1, mode: "never", delayMs: 100 });
  });

  test("the control plane: the report per port, 404 for an unknown pod, 400 for a bad body", async () => {
    const { pod, ssh } = await running();
    expect(await h.control.podService(pod.id)).toEqual({
      podId: pod.id,
      mode: "normal",
      delayMs: null,
      upAt: "2030-05-01T08:00:00.200Z",
      ports: [
        { port: "22/tcp", service: "ssh", public: ssh, listening: true, listeningSince: "2030-05-01T08:00:00.250Z", up: true },
        { port: "8000/http", service: "http", public: expect.any(Number), listening: true, listeningSince: "2030-05-01T08:00:00.250Z", up: true },
        { port: "9000/tcp", service: "tcp", public: expect.any(Number), listening: true, listeningSince: "2030-05-01T08:00:00.250Z", up: true },
      ],
    });
    await expect(h.control.podService("pod_nope")).rejects.toMatchObject({ status: 404 });
    await expect(h.control.setPodService(pod.id, { mode: "sometimes" as never })).rejects.toMatchObject({ status: 400 });
    await expect(h.control.setPodService(pod.id, { mode: "normal", delayMs: -1 })).rejects.toMatchObject({ status: 400 });
    await expect(h.control.setNextServices({ mode: "normal", count: 1.5 })).rejects.toMatchObject({ status: 400 });
  });
});

describe("listeners close with their run", () => {
  test("stop: refused at once; a start publishes new listeners", async () => {
    const { pod, ssh } = await running();
    await h.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    expect((await attempt(ssh)).outcome).toBe("refused");
    expect((await h.control.podService(pod.id)).ports.every((p) => !p.listening)).toBe(true);
    await h.post(`/v2/pods/${pod.id}/action`, { action: "start" });
    await h.control.advance(100);
    const again = publicOf(await get(pod.id), "22/tcp");
    expect((await attempt(again)).data).toBe(BANNER);
  });

  test("restart and a restarting PATCH: the old listeners close, the new run gets its own", async () => {
    const { pod, ssh } = await running();
    await h.post(`/v2/pods/${pod.id}/action`, { action: "restart" });
    expect((await attempt(ssh)).outcome).toBe("refused");
    await h.control.advance(100);
    const second = publicOf(await get(pod.id), "22/tcp");
    expect((await attempt(second)).data).toBe(BANNER);
    await h.patch(`/v2/pods/${pod.id}`, { env: { CHANGED: "1" } });
    expect((await attempt(second)).outcome).toBe("refused");
  });

  test("delete, exit and error close them; so does a reset of the emulator", async () => {
    const deleted = await running();
    await h.del(`/v2/pods/${deleted.pod.id}`);
    expect((await attempt(deleted.ssh)).outcome).toBe("refused");
    const exited = await running();
    await h.control.podExit(exited.pod.id);
    expect((await attempt(exited.web)).outcome).toBe("refused");
    const crashed = await running();
    await h.control.podError(crashed.pod.id);
    expect((await attempt(crashed.tcp)).outcome).toBe("refused");
    const last = await running();
    await h.control.reset();
    expect((await attempt(last.ssh)).outcome).toBe("refused");
  });

  test("a clock set back before RUNNING closes them at the next sweep", async () => {
    const { ssh } = await running();
    await h.control.setClock({ set: "2030-05-01T08:00:00.150Z" });
    expect((await attempt(ssh)).outcome).toBe("refused");
  });

  test("an emulator that closes leaves nothing listening", async () => {
    const port = await withEmulator({ freezeClock: true }, async (own) => (await running(own)).ssh);
    expect((await attempt(port)).outcome).toBe("refused");
  });
});

describe("what the services print, and when they came up", () => {
  const containerLines = async (id: string) => (await backfillOf(h, `/v2/pods/${id}/logs?tail=5000&source=container`)).map((e) => e.data);

  test("each service announces itself in the container log at the instant it answers", async () => {
    await h.control.setTimings({ serviceStartMs: 2000 });
    const { pod } = await running();
    expect((await containerLines(pod.id)).map((l) => l.line)).not.toContain("Server listening on 0.0.0.0 port 22.");
    await h.control.advance(2000);
    const lines = await containerLines(pod.id);
    const announced = lines.filter((l) => /^(Server listening|Uvicorn running|Listening on)/.test(l.line));
    expect(announced.map((l) => l.line)).toEqual([
      "Server listening on 0.0.0.0 port 22.",
      "Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
      "Listening on 0.0.0.0:9000",
    ]);
    for (const l of announced) expect(l.ts.slice(0, 23)).toBe("2030-05-01T08:00:02.200");
    // In time order with the process's own lines, and the container's start before them.
    const all = await backfillOf(h, `/v2/pods/${pod.id}/logs?tail=5000`);
    for (let i = 1; i < all.length; i++) expect(all[i].id > all[i - 1].id).toBe(true);
    expect(all.findIndex((e) => /started; pod is RUNNING/.test(e.data.line))).toBeLessThan(all.findIndex((e) => e.data.line === announced[0].line));
  });

  test("mode never prints the failure line instead, at the instant the services would have come up", async () => {
    await h.control.setNextServices({ mode: "never" });
    const { pod } = await running();
    const lines = (await containerLines(pod.id)).map((l) => l.line);
    expect(lines).toContain("service failed to start: address in use (emulator: mode never)");
    expect(lines).not.toContain("Server listening on 0.0.0.0 port 22.");
  });

  test("events: each service coming up, at its computed instant, once per run", async () => {
    await h.control.setTimings({ serviceStartMs: 1000 });
    const { pod, ssh } = await running();
    await h.control.advance(5000);
    expect((await attempt(ssh)).data).toBe(BANNER);
    // The fixture's running pods are noted too, once something reads them (the state below does).
    const ofPod = async () => (await h.control.serviceEvents()).filter((e) => e.podId === pod.id);
    const events = await eventually("the three services noted by the sweep", ofPod, { until: (e) => e.length === 3, timeoutMs: 3000 });
    expect(events).toEqual(
      PORTS.map((port) => ({
        podId: pod.id,
        port,
        service: port === "22/tcp" ? "ssh" : port.endsWith("http") ? "http" : "tcp",
        mode: "normal",
        time: "2030-05-01T08:00:01.200Z",
        runningAt: "2030-05-01T08:00:00.200Z",
        observedAt: expect.any(String),
      })),
    );
    expect((await h.control.state()).serviceEvents).toEqual(expect.arrayContaining(events));
    await attempt(ssh);
    expect(await ofPod()).toHaveLength(3);
    expect(await h.control.clearServiceEvents()).toEqual({ events: [] });
  });
});
