import { formatDollars } from "../../contract/estimate";
import { PRICES_KEPT_SECONDS } from "../../provider/resources/estimate";
import { setProgressSink } from "../../provider/runtime/progress";
import { UNKNOWN } from "../../provider/resources/unknowns";
import { GPU, defaultFixture } from "../helpers/fixtures";
import { PROVIDER_TEXT, checked, recorded, runtime, useProvider } from "./helpers";

jest.setTimeout(60_000);

const env = useProvider({ resetBeforeEach: true });

/** The progress lines printed while `fn` runs (where `pulumi preview` shows them). */
async function linesOf(fn: () => Promise<unknown>): Promise<string[]> {
  const lines: string[] = [];
  setProgressSink((line) => lines.push(line));
  try {
    await fn();
  } finally {
    setProgressSink((line) => console.log(line));
  }
  return lines;
}

const requests = async () => (await env.control.requests()).map((r) => `${r.method} ${r.path}`);

describe("the estimate line of check (what `pulumi preview` prints per resource)", () => {
  it("prints a pod's worst placement candidate, reading the catalog with GETs only", async () => {
    await env.control.clearRequests();
    const lines = await linesOf(() =>
      checked("pod", { name: "trainer", image: "i", gpu: { id: GPU.a100, count: 2 }, placement: [{ gpuTypeId: GPU.a100 }, { gpuTypeId: GPU.h100, dataCenterId: "EU-RO-1" }, { gpuTypeId: GPU.h100, dataCenterId: "US-KS-2" }] }),
    );
    expect(lines).toEqual([`[compute] pod trainer: estimated 5.98 $/hr (worst of 3 candidates: 2 × ${GPU.h100} on SECURE 5.98, 2 × ${GPU.a100} on SECURE 3.48)`]);
    // Besides the run's one check of the key (a data-center list, made by the file's first check).
    expect((await requests()).filter((r) => r !== "GET /v2/catalog/datacenters")).toEqual(["GET /v2/catalog/gpus"]);
  });

  it("prints a sandbox's estimate without any request", async () => {
    await env.control.clearRequests();
    const lines = await linesOf(() => checked("sandbox", { name: "scratch", image: "python:3.12", compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 } }));
    expect(lines).toEqual(["[compute] sandbox scratch: estimated 0.078 $/hr (sandbox rate: 2 vCPU × 0.03 + 4 GB × 0.004 + 10 GB disk × 0.0002)"]);
    expect(await requests()).toEqual([]);
  });

  it("says why when the catalog cannot be read, and check still passes", async () => {
    await env.control.addFault({ method: "GET", path: "/v2/catalog/cpus", status: 403, times: 1 });
    let result: Awaited<ReturnType<typeof runtime.resources.pod.check>> | undefined;
    const lines = await linesOf(async () => {
      result = await runtime.resources.pod.check({}, { name: "cpu", image: "i", cpu: { id: "cpu3c", vcpuCount: 4 }, __provider: PROVIDER_TEXT });
    });
    expect(result?.failures).toEqual([]);
    expect(lines).toEqual([expect.stringMatching(/^\[compute\] pod cpu: estimate unavailable: the catalog could not be read: .*403/)]);
    expect(lines.join("\n")).not.toContain(env.apiKey);
  });

  it("says which input is not known yet at preview, without reading the catalog", async () => {
    await env.control.clearRequests();
    const lines = await linesOf(() => checked("pod", { name: "later", image: "i", gpu: { id: UNKNOWN } }));
    expect(lines).toEqual(["[compute] pod later: estimate unavailable: gpu.id is not known until the update runs"]);
    expect(await requests()).toEqual([]);
  });

  it("prints nothing for inputs check refuses (their failures say what is wrong)", async () => {
    const lines = await linesOf(() => runtime.resources.pod.check({}, { name: "bad", image: "i", gpu: { id: GPU.h100, count: 0 }, __provider: PROVIDER_TEXT }));
    expect(lines).toEqual([]);
  });
});

describe("the estimate is what the service then bills", () => {
  it("for a GPU pod, a CPU pod and a sandbox", async () => {
    const declared = {
      pod: { name: "gpu", image: "i", gpu: { id: GPU.a5000, count: 2 } },
      cpu: { name: "cpu", image: "i", cpu: { id: "cpu3g", vcpuCount: 8 } },
      sandbox: { name: "sb", image: "python:3.12", compute: { vcpuCount: 3, memoryInGb: 6, containerDiskInGb: 20 } },
    };
    for (const [key, args] of Object.entries(declared)) {
      const kind = key === "sandbox" ? "sandbox" : "pod";
      let inputs: Record<string, unknown> = {};
      const [line] = await linesOf(async () => (inputs = await checked(kind, args)));
      const created = await runtime.resources[kind].create(inputs);
      expect(line).toContain(`estimated ${formatDollars(Number(created.outs.costPerHour))} $/hr`);
    }
  });
});

describe("a price change alone", () => {
  afterEach(() => env.control.loadFixture(defaultFixture()));

  it("changes the printed estimate and is never a diff", async () => {
    const args = { name: "steady", image: "i", gpu: { id: GPU.a5000 } };
    const inputs = await checked("pod", args);
    const created = await runtime.resources.pod.create(inputs);
    const olds = recorded(created.outs);

    const fixture = defaultFixture() as unknown as { gpuTypes: Array<{ id: string; price: { secure: number } }> };
    fixture.gpuTypes.find((g) => g.id === GPU.a5000)!.price.secure = 0.5;
    await env.control.loadFixture(fixture);

    // The next preview (prices are kept for a while within one: PRICES_KEPT_SECONDS).
    const now = Date.now();
    const later = jest.spyOn(Date, "now").mockReturnValue(now + (PRICES_KEPT_SECONDS + 1) * 1000);
    let again: Record<string, unknown> = {};
    const lines = await linesOf(async () => (again = await checked("pod", args, inputs))).finally(() => later.mockRestore());
    expect(lines).toEqual([`[compute] pod steady: estimated 0.50 $/hr (1 × ${GPU.a5000} on SECURE)`]);
    expect(again).toEqual({ ...inputs });
    expect(await runtime.resources.pod.diff(created.id, olds, again)).toMatchObject({ changes: false, replaces: [] });
  });
});
