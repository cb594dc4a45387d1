import { PRICES_KEPT_SECONDS } from "../../provider/resources/estimate";
import { setProgressSink } from "../../provider/runtime/progress";
import { UNKNOWN } from "../../provider/resources/unknowns";
import { GPU, defaultFixture } from "../helpers/fixtures";
import { dollars, listPrices } from "../helpers/prices";
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
    // Besides the run's one check of the key (a data-center list, made by the file's first check).
    expect((await requests()).filter((r) => r !== "GET /v2/catalog/datacenters")).toEqual(["GET /v2/catalog/gpus"]);
    // The catalog's prices, read by the test: the worst candidate is the dearer type, × 2 GPUs.
    const answer = await fetch(`${env.url}/v2/catalog/gpus`, { headers: { Authorization: `Bearer ${env.apiKey}` } });
    const { gpus } = (await answer.json()) as { gpus: Array<{ id: string; price: { secure: number } }> };
    const twoOf = (id: string) => (gpus.find((g) => g.id === id)!.price.secure * 2).toFixed(2);
    expect(Number(twoOf(GPU.h100))).toBeGreaterThan(Number(twoOf(GPU.a100)));
    expect(lines).toEqual([
      // Where the create would go first (docs/provider.md, "Placement"), then what it can cost.
      expect.stringMatching(new RegExp(`^\\[compute\\] pod trainer: placement: would try ${GPU.a100} in \\(any data center\\) first \\(${twoOf(GPU.a100)} \\$/hr, stock [A-Z]+\\); no reservation: capacity is known only at create$`)),
      `[compute] pod trainer: estimated ${twoOf(GPU.h100)} $/hr (worst of 3 candidates: 2 × ${GPU.h100} on SECURE ${twoOf(GPU.h100)}, 2 × ${GPU.a100} on SECURE ${twoOf(GPU.a100)})`,
    ]);
  });

  it("prints a sandbox's estimate without any request", async () => {
    await env.control.clearRequests();
    const lines = await linesOf(() => checked("sandbox", { name: "scratch", image: "python:3.12", compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 } }));
    expect(await requests()).toEqual([]);
    // At the rate docs/cost.md states (test/helpers/prices.ts), which the line spells out.
    const atRate = dollars((await listPrices(env)).sandbox({ vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 }));
    expect(lines).toEqual([`[compute] sandbox scratch: estimated ${atRate} $/hr (sandbox rate: 2 vCPU × 0.03 + 4 GB × 0.004 + 10 GB disk × 0.0002)`]);
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

describe("the estimate is the catalog's list price, and what the service then bills", () => {
  /** A service answer, read by the test itself over HTTP (no SDK, no project code). */
  const read = async <T>(path: string): Promise<T> => {
    const answer = await fetch(`${env.url}${path}`, { headers: { Authorization: `Bearer ${env.apiKey}` } });
    expect([path, answer.status]).toEqual([path, 200]);
    return (await answer.json()) as T;
  };
  /** The dollars an estimate line prints. */
  const printed = (line: string | undefined) => Number(/estimated ([\d.]+) \$\/hr/.exec(line ?? "")?.[1]);

  it("for a GPU pod and a CPU pod: the catalog's price of what they ask for, and the pod's cost as the service reports it", async () => {
    const { gpus } = await read<{ gpus: Array<{ id: string; price: { secure: number } }> }>("/v2/catalog/gpus");
    const { cpus } = await read<{ cpus: Array<{ id: string; price: { securePerVcpu: number } }> }>("/v2/catalog/cpus");
    const cases = [
      // Secure cloud (the default): the type's price per GPU, times the count.
      { args: { name: "gpu", image: "i", gpu: { id: GPU.a5000, count: 2 } }, listed: gpus.find((g) => g.id === GPU.a5000)!.price.secure * 2 },
      // The flavor's price per vCPU, times the vCPUs.
      { args: { name: "cpu", image: "i", cpu: { id: "cpu3g", vcpuCount: 8 } }, listed: cpus.find((c) => c.id === "cpu3g")!.price.securePerVcpu * 8 },
    ];
    for (const { args, listed } of cases) {
      let inputs: Record<string, unknown> = {};
      const line = (await linesOf(async () => (inputs = await checked("pod", args)))).find((l) => l.includes(" estimated "));
      expect([args.name, printed(line!)]).toEqual([args.name, expect.closeTo(listed, 4)]);
      const created = await runtime.resources.pod.create(inputs);
      const billed = (await read<{ cost: number }>(`/v2/pods/${created.id}`)).cost;
      expect([args.name, billed]).toEqual([args.name, expect.closeTo(listed, 4)]);
    }
  });

  it("for a sandbox: the rate the service bills it at (the catalog lists no sandbox price)", async () => {
    const args = { name: "sb", image: "python:3.12", compute: { vcpuCount: 3, memoryInGb: 6, containerDiskInGb: 20 } };
    let inputs: Record<string, unknown> = {};
    const [line] = await linesOf(async () => (inputs = await checked("sandbox", args)));
    const created = await runtime.resources.sandbox.create(inputs);
    const billed = (await read<{ compute: { costPerHr: number } }>(`/v2/sandboxes/${created.id}`)).compute.costPerHr;
    expect(billed).toBeGreaterThan(0);
    expect(printed(line)).toBeCloseTo(billed, 4);
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
