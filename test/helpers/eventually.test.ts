import { eventually } from "./eventually";

describe("eventually", () => {
  it("resolves with the first value read that is what was waited for", async () => {
    let reads = 0;
    const value = await eventually("the third read", () => ++reads, { until: (n) => n >= 3, intervalMs: 1 });
    expect(value).toBe(3);
    expect(reads).toBe(3);
  });

  it("by default waits for a truthy value, from a sync or an async read", async () => {
    let ready = false;
    setTimeout(() => (ready = true), 20);
    await expect(eventually("the flag", () => ready, { intervalMs: 5 })).resolves.toBe(true);
    await expect(eventually("a non-empty list", async () => ["x"])).resolves.toEqual(["x"]);
  });

  it("fails after its limit, naming what it waited for and the last value read", async () => {
    await expect(eventually("the pod RUNNING", () => ({ status: "PROVISIONING" }), { until: (p) => p.status === "RUNNING", timeoutMs: 30, intervalMs: 5 })).rejects.toThrow(
      /timed out after \d+ ms \(limit 30 ms, \d+ reads every 5 ms\) waiting for the pod RUNNING; last read: \{"status":"PROVISIONING"\}/,
    );
  });

  it("fails at once with the error of a read that throws", async () => {
    let reads = 0;
    const failing = eventually(
      "a read that cannot",
      () => {
        reads++;
        throw new Error("connection refused");
      },
      { timeoutMs: 10_000 },
    );
    await expect(failing).rejects.toThrow("connection refused");
    expect(reads).toBe(1);
  });
});
