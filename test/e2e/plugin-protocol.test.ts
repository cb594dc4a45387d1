/**
 * The provider behaviours of the end-to-end suites basic, changes and faults, driven at the
 * provider protocol instead of through the engine: the built plugin (`node
 * dist/provider/native/main.js`, as the engine starts it) called over gRPC with the calls the
 * engine makes for an `up`, a `preview`, a `refresh` and a `destroy` (check, diff, create, update,
 * read, delete), against an in-process emulator. The plugin runs the same provider runtime as the
 * dynamic resources.
 *
 * It runs in both jest projects (jest.config.js): against the emulator's seed shape (`default`)
 * and against the public OpenAPI's (`public-shape`), every provider behaviour of those three
 * suites each time, in seconds: the whole update/replace table of the pod (pod-change-cases.ts)
 * and every fault case. This suite is where they are proven; the engine suites keep only what
 * the engine itself shows (the state and the secrets encrypted in it, the plan it prints, a diff
 * turned into an update or a replace step and recorded, a failed create recorded and resumed by
 * the next `up`), on a few representative cases and against the seed shape alone: that part does
 * not depend on the answer shape.
 */
import type * as grpc from "@grpc/grpc-js";
import { noIds } from "../helpers/live-objects";
import { IN_PLACE_CHANGES, REPLACING_CHANGES, START_POD, statusAfter } from "./pod-change-cases";
import { GPU, KEYS } from "../helpers/fixtures";
import { answersTo } from "../helpers/request-log";
import { initFailure, js, prov, secret, SECRET, SIG, struct } from "../provider/native/client";
import { eventually } from "../helpers/eventually";
import { DiffChanges, idsOf, plaintext, POD, SANDBOX, urnOf, usePlugin, type Props, type Recorded } from "./plugin-harness";

jest.setTimeout(120_000);

describe("the provider behaviours of test/e2e/basic.test.ts", () => {
  const p = usePlugin();

  it("creates everything RUNNING; preview and refresh+preview show no changes; no secret outside the secret outputs; a rotated key works; delete leaves nothing", async () => {
    const pod = await p.create(POD, "trainer", {
      image: "pytorch:2.4",
      gpu: { id: GPU.a5000 },
      ports: ["22/tcp", "8888/http"],
      startSsh: true,
      startJupyter: true,
      env: secret({ HF_TOKEN: "hf-secret-token-123" }),
    });
    const sandbox = await p.create(SANDBOX, "scratch", { image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 2, containerDiskInGb: 5 }, idleTimeoutSeconds: 30 });
    expect(pod.outputs.status).toBe("RUNNING");
    expect(sandbox.outputs).toMatchObject({ state: "RUNNING", appliedIdleTimeoutSeconds: 90 });

    expect(await p.changes(pod)).toBe(DiffChanges.DIFF_NONE);
    expect(await p.changes(sandbox)).toBe(DiffChanges.DIFF_NONE);

    const refreshedPod = (await p.refresh(pod))!;
    const refreshedSandbox = (await p.refresh(sandbox))!;
    expect(await p.changes(refreshedPod)).toBe(DiffChanges.DIFF_NONE);
    expect(await p.changes(refreshedSandbox)).toBe(DiffChanges.DIFF_NONE);

    const live = (await p.api(`/v2/pods/${pod.id}`)) as unknown as { env: Record<string, string> };
    const jupyterPassword = live.env.JUPYTER_PASSWORD;
    expect(jupyterPassword).toEqual(expect.any(String));
    expect(pod.outputs.jupyterPassword).toEqual({ [SIG]: SECRET, value: jupyterPassword });
    // What the engine would write to state in plaintext: everything but the secret values.
    const state = JSON.stringify(plaintext([pod, sandbox, refreshedPod, refreshedSandbox]));
    expect(state).toContain(`"podId":"${pod.id}"`);
    expect(state).not.toContain(p.env.emulator.apiKey);
    expect(state).not.toContain("hf-secret-token-123");
    expect(state).not.toContain(jupyterPassword);

    // A revoked key fails Configure itself, once, in one line naming the setting (the run's
    // key check); a rotated key of the same account just works.
    expect(String(await p.configure("cs_revoked_000").then(() => "configured", (e: grpc.ServiceError) => e.details))).toMatch(/^compute:apiKey: http:\/\/127\.0\.0\.1:\d+ refused the key \(401 [^\n]+$/);
    await p.configure(KEYS.sessionDev);
    expect(await p.refresh(pod)).toMatchObject({ id: pod.id });

    await p.remove(refreshedPod);
    await p.remove(refreshedSandbox);
    expect(await p.liveIds()).toEqual(noIds());
    await p.configure(p.env.emulator.apiKey);
  });
});

describe("the provider behaviours of test/e2e/changes.test.ts", () => {
  const p = usePlugin();
  let pod: Props;
  let svc: Recorded;

  async function upWith(change: Props) {
    pod = { ...pod, ...change };
    const { step, res } = await p.up(svc, pod);
    const lastId = svc.id;
    svc = res;
    return { step, lastId };
  }

  beforeAll(async () => {
    pod = { ...START_POD };
    svc = await p.create(POD, "svc", pod);
    expect(svc.outputs.status).toBe("RUNNING");
  });

  it.each(IN_PLACE_CHANGES)("changing %s updates the same pod in place", async (_field, change) => {
    const { step, lastId } = await upWith(change);
    expect(step).toBe("update");
    expect(svc.id).toBe(lastId);
    expect(svc.outputs.status).toBe(statusAfter(change));
  });

  it.each(REPLACING_CHANGES)("changing %s replaces the pod: a new id, the old one gone from the service", async (_field, change) => {
    const { step, lastId } = await upWith(change);
    expect(step).toBe("replace");
    expect(svc.id).not.toBe(lastId);
    expect(svc.outputs.status).toBe("RUNNING");
    expect((await p.liveIds()).pod).toEqual([svc.id]);
  });

  it("an immediate preview after all that reports no changes", async () => {
    expect(await p.changes(svc)).toBe(DiffChanges.DIFF_NONE);
  });
});

describe("the provider behaviours of test/e2e/faults.test.ts", () => {
  const p = usePlugin();
  const sandbox = { image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 } };
  /** What the state holds after the case's `up`. */
  let recorded: Recorded[] = [];

  /** Every create of an `up` at once (nothing orders them), what succeeded recorded. */
  async function upAll(declared: Array<[string, string, Props]>): Promise<Recorded[]> {
    const results = await Promise.all(declared.map(([type, name, news]) => p.create(type, name, news)));
    recorded.push(...results);
    return results;
  }

  async function expectConverged(expected: { pods: number; sandboxes: number }) {
    const state = idsOf(recorded);
    expect(state.pod).toHaveLength(expected.pods);
    expect(state.sandbox).toHaveLength(expected.sandboxes);
    expect(await p.liveIds()).toEqual(state);
  }

  afterEach(async () => {
    // Between cases, as the engine suite's cleanSlate: faults cleared, destroy, nothing left.
    await p.env.control.clearFaults();
    for (const res of recorded) await p.remove(res);
    recorded = [];
    expect(await p.liveIds()).toEqual(noIds());
    await p.env.control.reset();
    await p.env.control.clearRequests();
  });

  it("a 429 storm: every request waits out Retry-After and the stack converges", async () => {
    await p.env.control.addFault({ path: "/v2/*", status: 429, retryAfter: 1, times: 6 });
    // A run of its own, as an `up` starts one: the storm meets the run's first requests too
    // (the key check, the left-behind lists), not only the creates'.
    await p.newRun();
    await upAll([
      [POD, "a", { image: "i", gpu: { id: GPU.a5000 } }],
      [SANDBOX, "s", sandbox],
    ]);
    expect((await p.env.control.requests()).filter((r) => r.status === 429).length).toBe(6);
    await expectConverged({ pods: 1, sandboxes: 1 });
  });

  it("dozens of consecutive 429s on the left-behind lookup: honoured for as long as they come, and the creates converge in one run", async () => {
    // 24 in a row on the sandbox list, Retry-After: 1 (more than the 10 retries a count allowed).
    await p.env.control.addFault({ method: "GET", path: "/v2/sandboxes", status: 429, retryAfter: 1, times: 24 });
    // A new run: the lookup is made once per run (shared-reads.ts `forRun`), so an earlier
    // case's would otherwise answer it.
    await p.newRun();
    await upAll([
      [POD, "a", { image: "i", gpu: { id: GPU.a5000 } }],
      [SANDBOX, "s", sandbox],
    ]);
    expect((await p.env.control.requests()).filter((r) => r.status === 429).length).toBe(24);
    await expectConverged({ pods: 1, sandboxes: 1 });
  });

  it("a 5xx burst on create: retried, still exactly one pod", async () => {
    await p.env.control.addFault({ method: "POST", path: "/v2/pods", status: 503, times: 3 });
    await upAll([[POD, "a", { image: "i", gpu: { id: GPU.a5000 } }]]);
    // The burst was served, then the one create that landed.
    expect(answersTo(await p.env.control.requests(), "POST", "/v2/pods")).toEqual([503, 503, 503, 201]);
    await expectConverged({ pods: 1, sandboxes: 0 });
  });

  it("dropped connections after the service created the pod and the sandbox: adopted, not duplicated", async () => {
    await p.env.control.addFault({ method: "POST", path: "/v2/pods", drop: true, after: true, times: 1 });
    await p.env.control.addFault({ method: "POST", path: "/v2/sandboxes", status: 502, after: true, times: 1 });
    await upAll([
      [POD, "a", { image: "i", gpu: { id: GPU.a5000 } }],
      [SANDBOX, "s", sandbox],
    ]);
    const requests = await p.env.control.requests();
    // One each, and each lost (null: the connection dropped): recovered, not resent.
    expect(answersTo(requests, "POST", "/v2/pods")).toEqual([null]);
    expect(answersTo(requests, "POST", "/v2/sandboxes")).toEqual([502]);
    await expectConverged({ pods: 1, sandboxes: 1 });
  });

  it("the first placement candidates sold out: the pod lands on a later one", async () => {
    await p.env.control.setCapacity({ dataCenterId: "EU-RO-1", gpuTypeId: GPU.h100, cloud: "SECURE", available: 0 });
    const [pod] = await upAll([
      [
        POD,
        "a",
        {
          image: "i",
          gpu: { id: GPU.h100 },
          placement: [
            { gpuTypeId: GPU.h100, dataCenterId: "EU-RO-1" },
            { gpuTypeId: GPU.h200, dataCenterId: "EU-RO-1" },
            { gpuTypeId: GPU.a100, dataCenterId: "EU-RO-1" },
          ],
        },
      ],
    ]);
    expect(pod!.outputs).toMatchObject({ gpuTypeId: GPU.a100, placementChosen: { gpuTypeId: GPU.a100, dataCenterId: "EU-RO-1" } });
    await expectConverged({ pods: 1, sandboxes: 0 });
  });

  it("a pod that goes to ERROR while starting fails the create clearly, is recorded, and the next up resumes it", async () => {
    await p.env.control.failNext("pod");
    const news = { image: "i", gpu: { id: GPU.a5000 } };
    const inputs = await p.check(POD, "a", news);
    const error = (await p.env.rpc.create(new prov.CreateRequest().setUrn(urnOf(POD, "a")).setType(POD).setName("a").setProperties(struct(inputs))).catch((e) => e)) as grpc.ServiceError;
    expect(String(error.message)).toMatch(/went to ERROR while waiting for RUNNING/);
    const failure = initFailure(error)!;
    // The engine records what ErrorResourceInitFailed carries: recorded, not leaked.
    recorded.push({ type: POD, name: "a", id: failure.getId(), declared: news, inputs, outputs: js(failure.getProperties()) });
    await expectConverged({ pods: 1, sandboxes: 0 });

    // The next up, a provider process of its own, updates the recorded pod (the engine does so
    // for a resource whose create failed): what the state holds is all it has to go on.
    await p.newRun();
    const resumed = await p.update(recorded[0]!, await p.check(POD, "a", news, inputs));
    recorded[0] = resumed;
    expect(resumed.outputs.status).toBe("RUNNING");
    await expectConverged({ pods: 1, sandboxes: 0 });
  });

  it("the emulator restarted in the middle of the creates: they ride it out and converge", async () => {
    await p.env.control.setTimings({ podProvisioningMs: 1500, podStartingMs: 1500, sandboxCreatingMs: 1500 });
    const up = upAll([
      [POD, "a", { image: "i", gpu: { id: GPU.a5000 } }],
      [POD, "b", { image: "i", cpu: { id: "cpu3c", vcpuCount: 2 } }],
      [SANDBOX, "s", sandbox],
    ]);
    await eventually("the three creates answered", async () => (await p.env.control.requests()).filter((r) => r.method === "POST" && r.status === 201).length >= 3, {
      timeoutMs: 60_000,
    });
    await p.restartEmulator(1000);
    await up;
    await expectConverged({ pods: 2, sandboxes: 1 });
  });
});
