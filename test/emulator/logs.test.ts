/** Pod and sandbox log streams: SSE framing, backfill, resume, live lines, 409 codes, activity. */
import { backfillOf, createdPod, createdSandbox, freshFixture, openLogStream, podRunningFor, runningSandbox, sandboxBody, sleep, useEmulator } from "./harness";

const h = useEmulator({ freezeClock: true }, freshFixture("2030-05-01T08:00:00Z"));

const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

const backfill = (path: string, headers?: Record<string, string>) => backfillOf(h, path, headers);

describe("409 while no container can stream, with the code member", () => {
  test("pods: provisioning, stopped, terminated", async () => {
    const pod = await createdPod(h);
    const provisioning = await openLogStream(h, `/v2/pods/${pod.id}/logs`);
    expect(provisioning.status).toBe(409);
    expect(provisioning.headers.get("content-type")).toBe("application/problem+json");
    expect(provisioning.problem).toMatchObject({ status: 409, code: "sandbox_starting", detail: expect.any(String) });
    await h.control.advance(100);
    const starting = await openLogStream(h, `/v2/pods/${pod.id}/logs`);
    expect(starting.status).toBe(200);
    starting.close();
    await h.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    expect((await openLogStream(h, `/v2/pods/${pod.id}/logs`)).problem.code).toBe("container_exited");
    await h.del(`/v2/pods/${pod.id}`);
    expect((await openLogStream(h, `/v2/pods/${pod.id}/logs`)).problem.code).toBe("sandbox_terminated");
  });

  test("sandboxes: creating, failed, terminated; unknown ids are 404", async () => {
    const sb = await createdSandbox(h);
    expect((await openLogStream(h, `/v2/sandboxes/${sb.id}/logs`)).problem.code).toBe("sandbox_starting");
    await h.control.advance(100);
    await h.control.sandboxExit(sb.id);
    expect((await openLogStream(h, `/v2/sandboxes/${sb.id}/logs`)).problem.code).toBe("container_exited");
    await h.del(`/v2/sandboxes/${sb.id}`);
    expect((await openLogStream(h, `/v2/sandboxes/${sb.id}/logs`)).problem.code).toBe("sandbox_terminated");
    expect((await openLogStream(h, "/v2/sandboxes/sb-nope/logs")).status).toBe(404);
  });
});

describe("backfill", () => {
  test("frames are id + data with a microsecond ts equal to the id, strictly increasing", async () => {
    const id = await podRunningFor(h, 200);
    const events = await backfill(`/v2/pods/${id}/logs?tail=5000`);
    expect(events.length).toBeGreaterThan(200);
    for (const e of events) {
      expect(e.id).toMatch(TS);
      expect(e.data.ts).toBe(e.id);
      expect(["container", "system"]).toContain(e.data.source);
    }
    for (let i = 1; i < events.length; i++) expect(events[i].id > events[i - 1].id).toBe(true);
  });

  test("lines are believable: image pull and container start (system), then the process's output", async () => {
    const id = await podRunningFor(h, 5);
    const events = await backfill(`/v2/pods/${id}/logs?tail=5000`);
    const system = events.filter((e) => e.data.source === "system").map((e) => e.data.line);
    const container = events.filter((e) => e.data.source === "container").map((e) => e.data.line);
    expect(system).toEqual(expect.arrayContaining(["Pulling image python:3.12-slim", "Status: Downloaded newer image for python:3.12-slim"]));
    expect(system.some((l) => /Container \w+ started/.test(l))).toBe(true);
    expect(container[0]).toBe("Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ...");
    expect(container[1]).toMatch(/"GET \/\S* HTTP\/1\.1" \d{3}/);
  });

  test("tail: 100 by default, any number up to 5000, 0 for live only; beyond 5000 is 422", async () => {
    const id = await podRunningFor(h, 300);
    expect(await backfill(`/v2/pods/${id}/logs`)).toHaveLength(100);
    const five = await backfill(`/v2/pods/${id}/logs?tail=5`);
    expect(five).toHaveLength(5);
    const all = await backfill(`/v2/pods/${id}/logs?tail=5000`);
    expect(five).toEqual(all.slice(-5));
    expect(await backfill(`/v2/pods/${id}/logs?tail=0`)).toHaveLength(0);
    expect((await openLogStream(h, `/v2/pods/${id}/logs?tail=5001`)).status).toBe(422);
    expect((await openLogStream(h, `/v2/pods/${id}/logs?source=stderr`)).status).toBe(422);
  });

  test("source selects container or system lines", async () => {
    const id = await podRunningFor(h, 20);
    const system = await backfill(`/v2/pods/${id}/logs?tail=5000&source=system`);
    const container = await backfill(`/v2/pods/${id}/logs?tail=5000&source=container`);
    expect(system.length).toBeGreaterThan(5);
    expect(system.every((e) => e.data.source === "system")).toBe(true);
    // http.server prints its banner line at start, then an access-log line per second (20.05 s → 21).
    expect(container.length).toBe(22);
    expect(container.every((e) => e.data.source === "container")).toBe(true);
  });

  test("since resumes from a time (tail ignored); Last-Event-ID wins over both and is exclusive", async () => {
    const id = await podRunningFor(h, 60);
    const all = await backfill(`/v2/pods/${id}/logs?tail=5000`);
    const pivot = all[all.length - 10];
    const since = await backfill(`/v2/pods/${id}/logs?tail=2&since=${encodeURIComponent(pivot.id)}`);
    expect(since).toEqual(all.slice(-10));
    const resumed = await backfill(`/v2/pods/${id}/logs?tail=2&since=${encodeURIComponent(all[0].id)}`, { "Last-Event-ID": pivot.id });
    expect(resumed).toEqual(all.slice(-9));
    expect((await openLogStream(h, `/v2/pods/${id}/logs?since=yesterday`)).status).toBe(422);
  });
});

describe("live", () => {
  test("new lines arrive as the clock advances, continuing without gaps after a resume", async () => {
    const id = await podRunningFor(h, 10);
    const stream = await openLogStream(h, `/v2/pods/${id}/logs?tail=1`);
    await stream.until((e) => e.length === 1);
    await h.control.advance(3000);
    const events = await stream.until((e) => e.length >= 4, 2000);
    stream.close();
    const resumed = await backfill(`/v2/pods/${id}/logs`, { "Last-Event-ID": events[0].id });
    expect(resumed).toEqual(events.slice(1));
    expect(events.slice(1).every((e) => e.data.source === "container")).toBe(true);
  });

  test("with a real-time clock, a running container prints live lines on its own", async () => {
    await h.control.unfreezeClock();
    const id = await podRunningFor(h, 1);
    const stream = await openLogStream(h, `/v2/pods/${id}/logs?tail=0&source=container`);
    expect(stream.status).toBe(200);
    // The rate (a line per second of the emulator's clock) is the frozen-clock tests' to show;
    // here, that lines come with nobody advancing the clock. 5 s only bounds a hang.
    const events = await stream.until((e) => e.length >= 2, 5000);
    stream.close();
    expect(events.every((e) => e.data.source === "container")).toBe(true);
    expect(events[1]!.id > events[0]!.id).toBe(true);
  });

  test("the stream ends when the container exits, after its last lines", async () => {
    const id = await podRunningFor(h, 5);
    const stream = await openLogStream(h, `/v2/pods/${id}/logs?tail=0`);
    await h.control.podExit(id);
    await stream.end();
    expect(stream.events[stream.events.length - 1].data.line).toMatch(/exited with code 0/);
  });

  test("a sandbox stream ends when the sandbox is deleted", async () => {
    const sb = await runningSandbox(h);
    const stream = await openLogStream(h, `/v2/sandboxes/${sb.id}/logs?tail=0`);
    expect(stream.status).toBe(200);
    await h.del(`/v2/sandboxes/${sb.id}`);
    await stream.end();
    expect(stream.events.map((e) => e.data.line)).toContain("Terminating sandbox at the user's request; compute released");
  });
});

describe("an open stream is sandbox activity", () => {
  test("it holds off the idle timeout; after it closes the idle clock starts from the close", async () => {
    const sb = await runningSandbox(h, sandboxBody({ idleTimeoutSeconds: 90 }));
    const stream = await openLogStream(h, `/v2/sandboxes/${sb.id}/logs`);
    await h.control.advance(200_000);
    const watched = (await h.get(`/v2/sandboxes/${sb.id}`)).body;
    expect(watched.state).toBe("RUNNING");
    expect(watched.lastActivityAt).toBe((await h.control.clock()).now);
    stream.close();
    await sleep(100);
    const closedAt = (await h.control.clock()).now;
    await h.control.advance(89_000);
    const idle = (await h.get(`/v2/sandboxes/${sb.id}`)).body;
    expect(idle).toMatchObject({ state: "RUNNING", lastActivityAt: closedAt });
    await h.control.advance(1_000);
    expect((await h.get(`/v2/sandboxes/${sb.id}`)).body).toMatchObject({ state: "TERMINATED", terminationReason: "IDLE_TIMEOUT" });
  });
});
