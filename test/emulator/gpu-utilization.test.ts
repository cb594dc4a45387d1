/**
 * A pod's GPU utilisation from the control plane (`/_emulator/pods/{id}/gpu-utilization`): a
 * constant every GPU reads, a step curve counted from the PUT on the emulator clock, and back to
 * the pseudo-random default on DELETE; bad bodies, unknown pods and CPU pods refused; in memory
 * only. The clock is frozen, so every instant is exact.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EmulatorControlError } from "../../emulator";
import { useScratch } from "../helpers/scratch";
import { createdPod, freshFixture, GPU, gpuPod, KEYS, runningPod, useEmulator, withEmulator } from "./harness";

const START = "2030-05-01T08:00:00Z";
const h = useEmulator({ freezeClock: START }, freshFixture(START));
const { tempDir } = useScratch("compute-emulator-gpu-util-");

/** A RUNNING pod of two GPUs (read at 08:00:00.250). */
const twoGpuPod = () => runningPod(h, gpuPod({ gpu: { id: GPU.rtx4090, count: 2 } }));

/** The GPUs of the pod as `GET /v2/pods/{id}` answers them. */
async function gpusOf(id: string, key?: string): Promise<Array<{ util: number; memoryUtil: number }>> {
  const response = await h.get(`/v2/pods/${id}`, { key });
  expect(response.status).toBe(200);
  return response.body.runtime.gpus;
}
const utilsOf = async (id: string, key?: string) => (await gpusOf(id, key)).map((g) => g.util);

/** The control plane's answer to `method` on the pod's setting, through HTTP as any client sends it. */
const control = (method: string, id: string, body?: unknown) => h.call(method, `/_emulator/pods/${id}/gpu-utilization`, { key: h.adminToken, body });

describe("a constant utilisation", () => {
  test("every GPU reads it in GET and list answers, from the PUT on and for good; memory and CPU read as before", async () => {
    const pod = await twoGpuPod();
    const before = (await h.get(`/v2/pods/${pod.id}`)).body.runtime;
    const answer = await h.control.setGpuUtilization(pod.id, { util: 0 });
    expect(answer).toEqual({ podId: pod.id, setting: { util: 0 }, since: "2030-05-01T08:00:00.250Z", util: 0 });

    const after = (await h.get(`/v2/pods/${pod.id}`)).body.runtime;
    expect(after.gpus).toEqual(before.gpus.map((g: { memoryUtil: number }) => ({ util: 0, memoryUtil: g.memoryUtil })));
    expect([after.cpu, after.memory]).toEqual([before.cpu, before.memory]);
    const listed = (await h.get("/v2/pods")).body.pods.find((p: { id: string }) => p.id === pod.id);
    expect(listed.runtime.gpus.map((g: { util: number }) => g.util)).toEqual([0, 0]);

    await h.control.advance(3_600_000);
    expect(await utilsOf(pod.id)).toEqual([0, 0]);
    expect(await h.control.gpuUtilization(pod.id)).toEqual(answer);
  });

  test("a cluster's member pod takes it by pod id", async () => {
    await h.control.setGpuUtilization("pod_ray_head", { util: 100 });
    expect(await utilsOf("pod_ray_head")).toEqual([100, 100]);
    expect((await utilsOf("pod_ray_worker1")).every((u) => u >= 35 && u <= 99)).toBe(true);
  });

  test("set before the pod runs, it shows once it does", async () => {
    const pod = await createdPod(h, gpuPod());
    await h.control.setGpuUtilization(pod.id, { util: 12 });
    expect((await h.get(`/v2/pods/${pod.id}`)).body.runtime).toBeNull();
    await h.control.advance(250);
    expect(await utilsOf(pod.id)).toEqual([12]);
  });
});

test("a curve steps as the clock moves: its first value before its first point, its last one for good", async () => {
  const pod = await twoGpuPod();
  const curve = [
    { afterSeconds: 10, util: 90 },
    { afterSeconds: 30.5, util: 0 },
    { afterSeconds: 60, util: 70 },
  ];
  expect(await h.control.setGpuUtilization(pod.id, { curve })).toEqual({ podId: pod.id, setting: { curve }, since: "2030-05-01T08:00:00.250Z", util: 90 });
  // Elapsed milliseconds since the PUT → what every GPU reads then.
  const steps: Array<[number, number]> = [
    [0, 90],
    [9_999, 90],
    [10_000, 90],
    [30_499, 90],
    [30_500, 0],
    [59_999, 0],
    [60_000, 70],
    [86_400_000, 70],
  ];
  let elapsed = 0;
  for (const [at, util] of steps) {
    await h.control.advance(at - elapsed);
    elapsed = at;
    expect([at, await utilsOf(pod.id)]).toEqual([at, [util, util]]);
    expect((await h.control.gpuUtilization(pod.id)).util).toBe(util);
  }
});

test("a new setting replaces the last, its curve counted from its own PUT", async () => {
  const pod = await twoGpuPod();
  await h.control.setGpuUtilization(pod.id, { util: 50 });
  await h.control.advance(20_000);
  const answer = await h.control.setGpuUtilization(pod.id, { curve: [{ afterSeconds: 0, util: 0 }, { afterSeconds: 5, util: 80 }] });
  expect(answer.since).toBe("2030-05-01T08:00:20.250Z");
  expect(await utilsOf(pod.id)).toEqual([0, 0]);
  await h.control.advance(5_000);
  expect(await utilsOf(pod.id)).toEqual([80, 80]);
});

test("DELETE returns the pod to the default, pseudo-random 35-99", async () => {
  const pod = await twoGpuPod();
  await h.control.setGpuUtilization(pod.id, { util: 0 });
  const cleared = { podId: pod.id, setting: null, since: null, util: null };
  expect(await h.control.clearGpuUtilization(pod.id)).toEqual(cleared);
  expect(await h.control.gpuUtilization(pod.id)).toEqual(cleared);
  // Over ten of the default's 5-second buckets, every GPU reads within its range.
  const seen: number[] = [];
  for (let i = 0; i < 10; i++) {
    seen.push(...(await utilsOf(pod.id)));
    await h.control.advance(5_000);
  }
  expect(seen.every((u) => Number.isInteger(u) && u >= 35 && u <= 99)).toBe(true);
  expect(new Set(seen).size).toBeGreaterThan(1);
  // Clearing what is not set is no error.
  expect(await h.control.clearGpuUtilization(pod.id)).toEqual(cleared);
});

describe("refused", () => {
  test.each<[string, unknown, string[]]>([
    ["no body", undefined, ["util: is required"]],
    ["an empty object", {}, ["util: is required"]],
    ["util out of range", { util: 101 }, ["util: must be <= 100"]],
    ["util negative", { util: -1 }, ["util: must be >= 0"]],
    ["util not an integer", { util: 2.5 }, ["util: must be an integer"]],
    ["util a string", { util: "50" }, ["util: must be a number"]],
    ["both forms at once", { util: 5, curve: [{ afterSeconds: 0, util: 5 }] }, ["util: unknown property"]],
    ["an unknown property", { util: 5, level: "idle" }, ["level: unknown property"]],
    ["an empty curve", { curve: [] }, ["curve: must have at least 1 item(s)"]],
    ["a curve that is not an array", { curve: 5 }, ["curve: must be an array"]],
    [
      "bad points, each named",
      { curve: [{ afterSeconds: -1, util: 50 }, { util: 200 }, { afterSeconds: 9, util: 9, at: 1 }] },
      ["curve[0].afterSeconds: must be >= 0", "curve[1].afterSeconds: is required", "curve[1].util: must be <= 100", "curve[2].at: unknown property"],
    ],
    [
      "points out of order",
      { curve: [{ afterSeconds: 10, util: 1 }, { afterSeconds: 10, util: 2 }, { afterSeconds: 5, util: 3 }] },
      [
        "curve[1].afterSeconds: must be greater than curve[0].afterSeconds (10): points go in increasing afterSeconds",
        "curve[2].afterSeconds: must be greater than curve[1].afterSeconds (10): points go in increasing afterSeconds",
      ],
    ],
  ])("%s: 400 naming every bad field, nothing set", async (_what, body, errors) => {
    const pod = await twoGpuPod();
    const response = await control("PUT", pod.id, body);
    expect([response.status, response.body.errors]).toEqual([400, errors]);
    expect((await h.control.gpuUtilization(pod.id)).setting).toBeNull();
  });

  test("an unknown pod: 404 for GET, PUT and DELETE, as for its service", async () => {
    for (const method of ["GET", "PUT", "DELETE"]) {
      const response = await control(method, "pod_nope", method === "PUT" ? { util: 0 } : undefined);
      expect([method, response.status, response.body.detail]).toEqual([method, 404, 'No pod "pod_nope"']);
    }
    const service = await h.call("GET", "/_emulator/pods/pod_nope/service", { key: h.adminToken });
    expect([service.status, service.body.detail]).toEqual([404, 'No pod "pod_nope"']);
  });

  test("a CPU pod: 409, it has no GPUs; reading or clearing it answers no setting", async () => {
    const error = await h.control.setGpuUtilization("pod_other_api", { util: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmulatorControlError);
    expect(error).toMatchObject({ status: 409, body: { detail: "Pod pod_other_api is a CPU pod: it has no GPUs whose utilisation could be set" } });
    const none = { podId: "pod_other_api", setting: null, since: null, util: null };
    expect(await h.control.gpuUtilization("pod_other_api")).toEqual(none);
    expect(await h.control.clearGpuUtilization("pod_other_api")).toEqual(none);
    const pod = (await h.get("/v2/pods/pod_other_api", { key: KEYS.other })).body;
    expect([pod.status, pod.runtime.gpus]).toEqual(["RUNNING", undefined]);
  });
});

test("in memory only: not in the state file, gone after a restart, and after a reset", async () => {
  const dataDir = tempDir();
  const podId = await withEmulator({ dataDir, freezeClock: START }, async (e) => {
    const pod = await createdPod(e, gpuPod());
    await e.control.setGpuUtilization(pod.id, { curve: [{ afterSeconds: 0, util: 3 }] });
    return pod.id;
  });
  expect(readFileSync(join(dataDir, "state.json"), "utf8")).not.toMatch(/gpuUtilization|"curve"/);
  await withEmulator({ dataDir }, async (e) => {
    expect((await e.control.gpuUtilization(podId)).setting).toBeNull();
  });

  await h.control.setGpuUtilization("pod_ray_head", { util: 1 });
  await h.control.reset();
  expect((await h.control.gpuUtilization("pod_ray_head")).setting).toBeNull();
});
