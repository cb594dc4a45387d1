/** CUDA versions (contract/cuda.ts): what the emulator places on and the SDK ranks candidates by. */
import { compareCuda, cudaNumbers, cudaVersionSatisfies } from "../../contract";

describe("compareCuda", () => {
  it("compares numerically, not as decimals: 12.11 is above 12.2", () => {
    expect(compareCuda("12.11", "12.2")).toBeGreaterThan(0);
    expect(compareCuda("11.8", "12.0")).toBeLessThan(0);
    expect(compareCuda("12.4", "12.4")).toBe(0);
  });

  it("reads a bare major as major.0", () => {
    expect(cudaNumbers("12")).toEqual([12, 0]);
    expect(compareCuda("12", "12.0")).toBe(0);
  });

  it("answers NaN for text that is not a version, so no comparison with it holds", () => {
    expect(cudaNumbers("12.x")).toBeNull();
    expect(cudaNumbers(null)).toBeNull();
    const result = compareCuda("latest", "12.0");
    expect(result >= 0 || result < 0).toBe(false);
  });
});

describe("cudaVersionSatisfies", () => {
  it("matches a non-empty set of versions exactly", () => {
    expect(cudaVersionSatisfies("12.4", { allowed: ["12.1", "12.4"] })).toBe(true);
    expect(cudaVersionSatisfies("12.40", { allowed: ["12.4"] })).toBe(false);
    expect(cudaVersionSatisfies("12.8", { allowed: ["12.4"] })).toBe(false);
  });

  it("compares a floor numerically; an empty set states no constraint beside it", () => {
    expect(cudaVersionSatisfies("12.11", { min: "12.2" })).toBe(true);
    expect(cudaVersionSatisfies("12.1", { min: "12.2" })).toBe(false);
    expect(cudaVersionSatisfies("12.1", { allowed: [], min: "12" })).toBe(true);
    expect(cudaVersionSatisfies("11.8", { allowed: [], min: "12" })).toBe(false);
  });

  it("lets a host of unknown CUDA version meet only the empty constraint", () => {
    expect(cudaVersionSatisfies(null, {})).toBe(true);
    expect(cudaVersionSatisfies(null, { min: "11.0" })).toBe(false);
    expect(cudaVersionSatisfies(null, { allowed: ["12.4"] })).toBe(false);
  });
});
