import { PlacementError, createPodWithPlacement, type PlacementCandidate } from "../../sdk";
import { rankCandidates } from "../../sdk/placement";
import type { DataCenter, GpuType } from "../../sdk";
import { problem, sendJson, useLoopback } from "../helpers/loopback";
import { podResponse } from "../helpers/fixtures";

const serve = useLoopback({ initialBackoffMs: 5, maxBackoffMs: 20 });

/** A service whose answer to a create depends on the (data center, GPU) candidate sent. */
async function scriptedService(script: Record<string, Array<number>>) {
  const { server, client } = await serve((req, res) => {
    res.setHeader("date", new Date().toUTCString());
    if (req.method === "GET") return sendJson(res, 200, { pods: [] });
    const body = JSON.parse(req.body);
    const key = `${body.gpu.id}@${body.dataCenterIds?.[0]}`;
    const status = script[key]?.shift() ?? 201;
    if (status === 201) return sendJson(res, 201, podResponse({ name: body.name, gpu: { id: body.gpu.id, count: 1, vcpuCount: 8, memory: 64 }, dataCenterId: body.dataCenterIds[0] }));
    problem(res, status, `answer ${status} for ${key}`, status === 422 ? { errors: ["gpu.id: unknown"] } : {}, status === 429 ? { "retry-after": "0" } : {});
  });
  const creates = () => server.requests.filter((r) => r.method === "POST").map((r) => { const b = JSON.parse(r.body); return `${b.gpu.id}@${b.dataCenterIds[0]}`; });
  return { client, creates };
}

/** A candidate in the notation the scripted service and `creates()` use: `GPU@DATA-CENTER`. */
const at = (key: string): PlacementCandidate => {
  const [gpuTypeId, dataCenterId] = key.split("@");
  return { gpuTypeId, dataCenterId };
};

const request = { name: "train", image: "img", gpu: { id: "ignored" } };
const candidates = ["H100@EU-1", "A100@US-1", "L40S@US-2"].map(at);

describe("placement per status", () => {
  it("400 and 403 move on to the next candidate; the result names the winner and every attempt", async () => {
    const svc = await scriptedService({ "H100@EU-1": [400], "A100@US-1": [403] });
    const result = await createPodWithPlacement(svc.client, request, candidates);
    expect(result.chosen).toEqual(at("L40S@US-2"));
    expect(result.pod.dataCenterId).toBe("US-2");
    expect(result.attempts.map((a) => [a.outcome, a.status])).toEqual([["no-capacity", 400], ["forbidden", 403], ["created", 201]]);
    expect(svc.creates()).toEqual(["H100@EU-1", "A100@US-1", "L40S@US-2"]);
  });

  it("402 stops at once: no further candidate is tried", async () => {
    const svc = await scriptedService({ "H100@EU-1": [400], "A100@US-1": [402] });
    const error = await createPodWithPlacement(svc.client, request, candidates).catch((e) => e);
    expect(error).toBeInstanceOf(PlacementError);
    expect(error.message).toMatch(/insufficient balance \(402\)/);
    expect(svc.creates()).toEqual(["H100@EU-1", "A100@US-1"]);
  });

  it("422 stops and is never retried", async () => {
    const svc = await scriptedService({ "H100@EU-1": [422] });
    const error = await createPodWithPlacement(svc.client, request, candidates).catch((e) => e);
    expect(error.message).toMatch(/violates the contract \(422\)[\s\S]*gpu\.id: unknown/);
    expect(svc.creates()).toEqual(["H100@EU-1"]);
  });

  it("429 waits and resumes the same candidate; 5xx retries the same candidate", async () => {
    const svc = await scriptedService({ "H100@EU-1": [429, 503, 201] });
    const result = await createPodWithPlacement(svc.client, request, candidates);
    expect(result.chosen.gpuTypeId).toBe("H100");
    expect(svc.creates()).toEqual(["H100@EU-1", "H100@EU-1", "H100@EU-1"]);
  });

  it("when every candidate fails, the error lists every attempt", async () => {
    const svc = await scriptedService({ "H100@EU-1": [400], "A100@US-1": [400], "L40S@US-2": [400] });
    const error: PlacementError = await createPodWithPlacement(svc.client, request, candidates).catch((e) => e);
    expect(error.attempts).toHaveLength(3);
    expect(error.message).toMatch(/H100 in EU-1: no-capacity \(400\)[\s\S]*A100 in US-1[\s\S]*L40S in US-2: no-capacity \(400\): answer 400 for L40S@US-2/);
  });
});

describe("candidates derived from the catalog", () => {
  const dc = (id: string, globalNetwork: boolean, levels: Record<string, string>): DataCenter =>
    ({ id, name: id, region: "EUROPE", globalNetwork, networkVolumeTypes: [], compliance: [], gpuAvailability: Object.entries(levels).map(([g, availability]) => ({ id: g, availability })) }) as DataCenter;
  const gpu = (id: string, cuda: string[]): GpuType =>
    ({ id, name: id, pool: null, manufacturer: "NVIDIA", memory: 80, secure: true, community: true, price: { secure: 1, community: 1 }, maxCount: { secure: 8, community: 8 }, cudaVersions: cuda.map((version) => ({ version, available: true })) }) as GpuType;
  const dataCenters = [dc("A", false, { H100: "LOW", A100: "HIGH" }), dc("B", true, { H100: "HIGH", A100: "NONE" }), dc("C", true, { H100: "MEDIUM", A100: "MEDIUM" })];
  const gpus = [gpu("H100", ["12.4", "12.8"]), gpu("A100", ["11.8", "12.2"])];

  it("orders HIGH before MEDIUM before LOW, skips NONE, and keeps GPU preference on ties", () => {
    const ranked = rankCandidates({ ...request, gpu: { id: "H100" } }, { gpuTypeIds: ["H100", "A100"] }, dataCenters, gpus);
    expect(ranked).toEqual(["H100@B", "A100@A", "H100@C", "A100@C", "H100@A"].map(at));
  });

  it("respects CUDA constraints (exact set, numeric floor) and global networking", () => {
    const floor = rankCandidates({ ...request, gpu: { id: "x", minCudaVersion: "12.3" } }, { gpuTypeIds: ["H100", "A100"] }, dataCenters, gpus);
    expect(new Set(floor.map((c) => c.gpuTypeId))).toEqual(new Set(["H100"]));
    const exact = rankCandidates({ ...request, gpu: { id: "x", allowedCudaVersions: ["11.8"] } }, { gpuTypeIds: ["H100", "A100"] }, dataCenters, gpus);
    expect(new Set(exact.map((c) => c.gpuTypeId))).toEqual(new Set(["A100"]));
    const global = rankCandidates({ ...request, gpu: { id: "H100" }, globalNetworking: true }, {}, dataCenters, gpus);
    expect(global.map((c) => c.dataCenterId)).toEqual(["B", "C"]);
  });
});
