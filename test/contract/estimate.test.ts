import {
  describeEstimate,
  estimateClusterCost,
  estimatePodCost,
  estimateSandboxCost,
  formatDollars,
  pricesNeeded,
  type EstimateOutcome,
  type PriceList,
} from "../../contract/estimate";

const H100 = "NVIDIA H100 80GB HBM3";
const A100 = "NVIDIA A100-SXM4-80GB";
const L4 = "NVIDIA L4";

/** A small catalog written out, so the expected figures are checkable by hand. */
const prices: PriceList = {
  gpuTypes: [
    { id: H100, price: { secure: 2.99, community: 2.69 }, maxCount: { secure: 8, community: 8 } },
    { id: A100, price: { secure: 1.74, community: 1.39 }, maxCount: { secure: 8, community: 2 } },
    { id: L4, price: { secure: 0.43, community: 0 }, maxCount: { secure: 8, community: 0 } },
  ],
  cpuFlavors: [{ id: "cpu3c", vcpu: { min: 2, max: 32 }, price: { securePerVcpu: 0.03 } }],
};

function dollars(outcome: EstimateOutcome): number {
  if (!outcome.ok) throw new Error(`expected an estimate, got: ${outcome.reason}`);
  return outcome.estimate.dollarsPerHour;
}

describe("a GPU pod's estimate", () => {
  it("is the list price on its cloud times the GPU count (SECURE and one GPU by default)", () => {
    expect(dollars(estimatePodCost({ gpu: { id: H100 } }, prices))).toBe(2.99);
    expect(dollars(estimatePodCost({ gpu: { id: H100, count: 2 } }, prices))).toBe(5.98);
    expect(dollars(estimatePodCost({ gpu: { id: H100, count: 2 }, cloud: "COMMUNITY" }, prices))).toBe(5.38);
  });

  it("is the worst placement candidate, and says so", () => {
    const outcome = estimatePodCost(
      { gpu: { id: A100, count: 2 }, placement: [{ gpuTypeId: A100, dataCenterId: "EU-RO-1" }, { gpuTypeId: H100, dataCenterId: "EU-RO-1" }, { dataCenterId: "US-TX-3" }] },
      prices,
    );
    expect(outcome).toMatchObject({ ok: true, estimate: { dollarsPerHour: 5.98, bound: "worst-candidate" } });
    // A candidate naming only a data center keeps the request's GPU type.
    expect(outcome.ok && outcome.estimate.candidates.map((c) => [c.label, c.dataCenterId, c.dollarsPerHour])).toEqual([
      [`2 × ${A100} on SECURE`, "EU-RO-1", 3.48],
      [`2 × ${H100} on SECURE`, "EU-RO-1", 5.98],
      [`2 × ${A100} on SECURE`, "US-TX-3", 3.48],
    ]);
    expect(describeEstimate(outcome)).toBe(`estimated 5.98 $/hr (worst of 3 candidates: 2 × ${H100} on SECURE 5.98, 2 × ${A100} on SECURE 3.48)`);
  });

  it("leaves out candidates the service would refuse: they never bill", () => {
    const outcome = estimatePodCost({ gpu: { id: H100, count: 4 }, cloud: "COMMUNITY", placement: [{ gpuTypeId: L4 }, { gpuTypeId: A100 }, { gpuTypeId: "NVIDIA Imaginary" }, { gpuTypeId: H100 }] }, prices);
    expect(dollars(outcome)).toBe(10.76);
    expect(describeEstimate(outcome)).toBe(
      `estimated 10.76 $/hr (worst of 4 candidates: 4 × ${H100} on COMMUNITY 10.76; never billed: ` +
        `4 × ${L4} on COMMUNITY (not offered on COMMUNITY cloud), 4 × ${A100} on COMMUNITY (the largest COMMUNITY machine has 2 GPUs), ` +
        "4 × NVIDIA Imaginary on COMMUNITY (not in the GPU catalog))",
    );
  });

  it("is unavailable, with every reason, when no candidate can be placed", () => {
    const outcome = estimatePodCost({ gpu: { id: L4 }, cloud: "COMMUNITY" }, prices);
    expect(outcome).toEqual({ ok: false, reason: `no candidate can be placed (1 × ${L4} on COMMUNITY: not offered on COMMUNITY cloud)` });
    expect(describeEstimate(outcome)).toBe(`estimate unavailable: no candidate can be placed (1 × ${L4} on COMMUNITY: not offered on COMMUNITY cloud)`);
  });

  it("is 0 for a pod kept stopped, naming what it costs once started", () => {
    const outcome = estimatePodCost({ gpu: { id: H100 }, stopped: true }, prices);
    expect(dollars(outcome)).toBe(0);
    expect(describeEstimate(outcome)).toBe(`estimated 0.00 $/hr (kept stopped; 2.99 $/hr once started; 1 × ${H100} on SECURE)`);
  });

  it("needs the GPU list, and says so when it was not read", () => {
    expect(pricesNeeded({ gpu: { id: H100 } })).toEqual({ gpuTypes: true, cpuFlavors: false });
    expect(estimatePodCost({ gpu: { id: H100 } }, {})).toEqual({ ok: false, reason: "the GPU catalog was not read" });
  });
});

describe("a cluster's estimate", () => {
  it("is podCount × gpuCountPerPod × the SECURE list price, of the worst candidate that can be placed", () => {
    expect(dollars(estimateClusterCost({ compute: { gpuTypeId: A100, gpuCountPerPod: 8, podCount: 4 } }, prices))).toBe(55.68);
    const outcome = estimateClusterCost({ compute: { gpuTypeId: A100, gpuCountPerPod: 2, podCount: 3 }, placement: [{ gpuTypeId: L4 }, { gpuTypeId: H100 }, { dataCenterId: "US-TX-3" }] }, prices);
    expect(dollars(outcome)).toBe(17.94);
    expect(describeEstimate(outcome)).toMatch(/^estimated 17\.94 \$\/hr \(worst of 3 candidates: 3 nodes × 2 × NVIDIA H100 80GB HBM3 on SECURE 17\.94/);
  });

  it("leaves out a candidate whose nodes exceed the largest machine, and says why when none can be placed", () => {
    const one = estimateClusterCost({ compute: { gpuTypeId: H100, gpuCountPerPod: 8, podCount: 2 }, placement: [{ gpuTypeId: "NVIDIA Quantum 1" }, { gpuTypeId: L4, dataCenterId: "EU-NL-1" }] }, prices);
    expect(dollars(one)).toBe(6.88);
    expect(describeEstimate(one)).toContain("never billed: 2 nodes × 8 × NVIDIA Quantum 1 on SECURE (not in the GPU catalog)");
    const none = estimateClusterCost({ compute: { gpuTypeId: H100, gpuCountPerPod: 9, podCount: 2 } }, prices);
    expect(none).toEqual({ ok: false, reason: expect.stringContaining("the largest SECURE machine has 8 GPUs") });
  });
});

describe("a CPU pod's estimate", () => {
  it("is the flavor's price per vCPU times the vCPUs, whatever the data centers", () => {
    const outcome = estimatePodCost({ cpu: { id: "cpu3c", vcpuCount: 4 }, placement: [{ dataCenterId: "US-TX-3" }, { dataCenterId: "EU-RO-1" }] }, prices);
    expect(dollars(outcome)).toBe(0.12);
    expect(describeEstimate(outcome)).toBe("estimated 0.12 $/hr (4 vCPU cpu3c on SECURE)");
    expect(pricesNeeded({ cpu: { id: "cpu3c", vcpuCount: 4 } })).toEqual({ gpuTypes: false, cpuFlavors: true });
  });

  it("is unavailable for a flavor the catalog does not list or a vCPU count it does not take", () => {
    expect(estimatePodCost({ cpu: { id: "cpu9x", vcpuCount: 4 } }, prices)).toEqual({ ok: false, reason: "no candidate can be placed (4 vCPU cpu9x on SECURE: not in the CPU catalog)" });
    expect(estimatePodCost({ cpu: { id: "cpu3c", vcpuCount: 64 } }, prices)).toEqual({ ok: false, reason: "no candidate can be placed (64 vCPU cpu3c on SECURE: cpu3c takes 2 to 32 vCPUs)" });
  });
});

describe("a sandbox's estimate", () => {
  it("is the sandbox rate on its compute, with no catalog read", () => {
    const outcome = estimateSandboxCost({ compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 } });
    // 2 × 0.03 + 4 × 0.004 + 10 × 0.0002, written out: the rule is what is under test.
    expect(dollars(outcome)).toBe(0.078);
    expect(describeEstimate(outcome)).toBe("estimated 0.078 $/hr (sandbox rate: 2 vCPU × 0.03 + 4 GB × 0.004 + 10 GB disk × 0.0002)");
  });

  it("names the field when the compute is not a number", () => {
    expect(estimateSandboxCost({ compute: { vcpuCount: 2, memoryInGb: "4" as unknown as number, containerDiskInGb: 10 } })).toEqual({
      ok: false,
      reason: "compute.memoryInGb: must be a number >= 0",
    });
  });
});

test("dollars print with two to four decimals, as the catalog lists prices", () => {
  expect([5.98, 0.078, 1, 0.0782, 12.5, 1 / 3].map(formatDollars)).toEqual(["5.98", "0.078", "1.00", "0.0782", "12.50", "0.3333"]);
});
