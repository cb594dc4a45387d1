import { diffOf } from "../../provider/resources/definition";
import { podResource } from "../../provider/resources/pod";
import type { PodOutputs } from "../../provider/resources/pod/model";
import { UNKNOWN } from "../../provider/resources/unknowns";
import { GPU } from "../helpers/fixtures";
import { PROVIDER_TEXT, runtime } from "./helpers";

const base = { name: "trainer", image: "img:1", gpu: { id: GPU.h100 } };

describe("Pod check (pulumi preview, before any API call)", () => {
  it("reports every failure at once, each naming its field", async () => {
    const result = await runtime.resources.pod.check(
      {},
      {
        name: "x",
        disk: 0,
        ports: ["8888"],
        gpu: { id: "g", count: 0 },
        cpu: { id: "cpu3c", vcpuCount: 3 },
        desiredState: "PAUSED",
        readyTimeoutSeconds: -1,
        placement: [{}],
        __provider: PROVIDER_TEXT,
      },
    );
    expect(result.failures).toEqual(
      expect.arrayContaining([
        { property: "", reason: "disk: must be >= 1" },
        { property: "", reason: expect.stringMatching(/^ports\[0\]: .*(port\/protocol|<port>)/) },
        { property: "", reason: "gpu.count: must be >= 1" },
        { property: "", reason: "cpu.vcpuCount: must be a power of two" },
        { property: "", reason: 'desiredState: must be "RUNNING" or "STOPPED"' },
        { property: "", reason: "readyTimeoutSeconds: must be a number > 0" },
        { property: "", reason: "placement[0]: must name a gpuTypeId, a dataCenterId or both" },
      ]),
    );
  });

  it("reports cross-field rules once the shapes are right", async () => {
    const result = await runtime.resources.pod.check({}, { name: "x", gpu: { id: "g" }, cpu: { id: "cpu3c", vcpuCount: 2 }, __provider: PROVIDER_TEXT });
    expect(result.failures).toEqual([
      { property: "", reason: "gpu, cpu: exactly one of gpu or cpu must be set, not both" },
      { property: "", reason: "image: is required unless templateId is set" },
    ]);
  });

  it("lets values unknown at preview through", async () => {
    const result = await runtime.resources.pod.check({}, { name: UNKNOWN, image: UNKNOWN, disk: UNKNOWN, gpu: { id: UNKNOWN, count: UNKNOWN }, mounts: UNKNOWN, __provider: PROVIDER_TEXT });
    expect(result.failures).toEqual([]);
  });

  it("generates a name once and keeps it", async () => {
    const first = await runtime.resources.pod.check({}, { image: "i", gpu: { id: "g" }, namePrefix: "trainer", __provider: PROVIDER_TEXT });
    expect(first.inputs.name).toMatch(/^trainer-[0-9a-f]{8}$/);
    const again = await runtime.resources.pod.check(first.inputs, { image: "i2", gpu: { id: "g" }, namePrefix: "trainer", __provider: PROVIDER_TEXT });
    expect(again.inputs.name).toBe(first.inputs.name);
    expect(again.inputs.__provider).toBe(PROVIDER_TEXT);
  });
});

describe("Pod diff: the update/replace table", () => {
  const olds = { ...base, placementChosen: { gpuTypeId: GPU.h100, dataCenterId: "US-TX-3" } } as PodOutputs;
  /** The pod's diff as the runtime makes it: the input list's table, then the pod's own rules. */
  const diffPod = (recorded: PodOutputs, news: object) => diffOf(podResource, recorded, news as PodOutputs);
  const kinds = (news: Record<string, unknown>) => diffPod(olds, { ...base, ...news });

  it.each([
    [{ name: "renamed" }, ["name"]],
    [{ locked: true }, ["locked"]],
    [{ image: "img:2" }, ["image"]],
    [{ cmd: ["python", "train.py"] }, ["args"]],
    [{ disk: 50 }, ["disk"]],
    [{ env: { A: "1" } }, ["env"]],
    [{ ports: ["22/tcp"] }, ["ports"]],
    [{ registry: "reg_1" }, ["registry"]],
    [{ templateId: "tpl_pytorch" }, ["templateId"]],
    [{ globalNetworking: true }, ["globalNetworking"]],
    [{ desiredState: "STOPPED" }, ["desiredState"]],
  ])("%j updates in place (%j)", (news, updates) => {
    expect(kinds(news)).toEqual({ replaces: [], updates });
  });

  it.each([
    [{ gpu: { id: GPU.a100 } }, ["gpu.id"]],
    [{ gpu: { id: base.gpu.id, count: 2 } }, ["gpu.count"]],
    [{ gpu: { id: base.gpu.id, minCudaVersion: "12.4" } }, ["gpu.minCudaVersion"]],
    [{ gpu: { id: base.gpu.id, allowedCudaVersions: ["12.4"] } }, ["gpu.allowedCudaVersions"]],
    [{ gpu: { id: base.gpu.id, minRamPerGpu: 64 } }, ["gpu.minRamPerGpu"]],
    [{ gpu: undefined, cpu: { id: "cpu3c", vcpuCount: 2 } }, ["cpu"]],
    [{ cloud: "COMMUNITY" }, ["cloud"]],
    [{ dataCenterIds: ["EU-RO-1"] }, ["dataCenterIds"]],
    [{ startSsh: true }, ["startSsh"]],
    [{ startJupyter: true }, ["startJupyter"]],
    [{ mounts: { persistent: { size: 20, path: "/w" } } }, ["mounts"]],
    [{ placement: [{ gpuTypeId: GPU.a100 }] }, ["placement"]],
  ])("%j replaces (%j)", (news, replaces) => {
    expect(kinds(news).replaces).toEqual(replaces);
  });

  it("mount volume ids and persistent size replace; mount paths update", () => {
    const withMount = { ...olds, mounts: { network: [{ volumeId: "vol_a", path: "/data" }] } } as PodOutputs;
    expect(diffPod(withMount, { ...base, mounts: { network: [{ volumeId: "vol_b", path: "/data" }] } }).replaces).toEqual(["mounts.network.volumeId"]);
    const pathOnly = diffPod(withMount, { ...base, mounts: { network: [{ volumeId: "vol_a", path: "/mnt" }] } });
    expect([pathOnly.replaces, pathOnly.updates]).toEqual([[], ["mounts"]]);
    const persistent = { ...olds, mounts: { persistent: { size: 20, path: "/w" } } } as PodOutputs;
    expect(diffPod(persistent, { ...base, mounts: { persistent: { size: 40, path: "/w" } } }).replaces).toEqual(["mounts.persistent.size"]);
  });

  it("placement changes that still allow the current placement change nothing on the pod", () => {
    const d = diffPod(olds, { ...base, placement: [{ gpuTypeId: GPU.a100 }, { gpuTypeId: GPU.h100, dataCenterId: "US-TX-3" }] });
    expect(d.replaces).toEqual([]);
    // With candidates that each name a GPU type, gpu.id is decided by them: a different gpu.id alone does not replace.
    expect(diffPod(olds, { ...base, gpu: { id: "other" }, placement: [{ gpuTypeId: GPU.h100, dataCenterId: "US-TX-3" }] }).replaces).toEqual([]);
    // A candidate that names only a data center places gpu.id: a different one is a different pod.
    expect(diffPod(olds, { ...base, gpu: { id: "other" }, placement: [{ dataCenterId: "US-TX-3" }] }).replaces).toEqual(["gpu.id"]);
  });

  it("a list given to a pod made without one keeps it where the service placed it, if the list allows that", () => {
    // Created without `placement`: the candidate recorded is {}, the pod runs on an H100 in US-TX-3.
    const placedByService = { ...base, placementChosen: {}, gpuTypeId: GPU.h100, dataCenterId: "US-TX-3" } as unknown as PodOutputs;
    expect(diffPod(placedByService, { ...base, placement: [{ dataCenterId: "US-TX-3" }] })).toEqual({ replaces: [], updates: ["placement"] });
    expect(diffPod(placedByService, { ...base, placement: [{ gpuTypeId: GPU.h100 }] })).toEqual({ replaces: [], updates: ["placement"] });
    expect(diffPod(placedByService, { ...base, placement: [{ dataCenterId: "EU-RO-1" }] }).replaces).toEqual(["placement"]);
    // A candidate naming only the data center, recorded at create: the GPU type is where it landed.
    const placedInDataCenter = { ...placedByService, placementChosen: { dataCenterId: "US-TX-3" } } as unknown as PodOutputs;
    expect(diffPod(placedInDataCenter, { ...base, placement: [{ gpuTypeId: GPU.h100, dataCenterId: "US-TX-3" }] }).replaces).toEqual([]);
    expect(diffPod(placedInDataCenter, { ...base, placement: [{ gpuTypeId: GPU.a100, dataCenterId: "US-TX-3" }] }).replaces).toEqual(["placement"]);
  });

  it("at preview, a candidate not known yet keeps the pod where a known one still allows its placement, and may replace it where none does", () => {
    const current = { gpuTypeId: GPU.h100, dataCenterId: "US-TX-3" };
    expect(kinds({ placement: [current, { gpuTypeId: UNKNOWN }] })).toEqual({ replaces: [], updates: ["placement"] });
    expect(kinds({ placement: [{ gpuTypeId: GPU.a100 }, { gpuTypeId: UNKNOWN }] }).replaces).toEqual(["placement"]);
    expect(kinds({ placement: UNKNOWN }).replaces).toEqual(["placement"]);
  });

  it("a logical rename (with an alias) alone is no change of the pod; the ready timeout's default equals leaving it out", () => {
    expect(kinds({ namePrefix: "renamed-logical" })).toEqual({ replaces: [], updates: [] });
    expect(kinds({ readyTimeoutSeconds: 900 })).toEqual({ replaces: [], updates: [] });
    expect(kinds({ readyTimeoutSeconds: 901 })).toEqual({ replaces: [], updates: ["readyTimeoutSeconds"] });
  });

  it("args and the equivalent cmd compare equal; nothing changed means no diff", () => {
    const withArgs = { ...olds, args: "python train.py --epochs 3" } as PodOutputs;
    expect(diffPod(withArgs, { ...base, cmd: ["python", "train.py", "--epochs", "3"] }).updates).toEqual([]);
    expect(diffPod(olds, { ...base })).toEqual({ replaces: [], updates: [] });
  });

  it("reports a change when only the provider's own code changed, so it reaches the state", async () => {
    const d = await runtime.resources.pod.diff("pod-1", { ...olds, __provider: "old code" }, { ...base, __provider: "new code" });
    expect(d).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const same = await runtime.resources.pod.diff("pod-1", { ...olds, __provider: "code" }, { ...base, __provider: "code" });
    expect(same.changes).toBe(false);
  });
});
