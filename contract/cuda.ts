/**
 * CUDA versions as the contract compares them: numerically, not as decimals (12.11 is above
 * 12.2), and a constraint is either an exact set of versions or a floor. One implementation for
 * the emulator's placement and catalog filters and the SDK's ranking of placement candidates.
 */

/** `major` or `major.minor`; a bare major reads as `major.0` (the catalog's `minCudaVersion` filter accepts it). */
const CUDA_VERSION = /^(\d+)(?:\.(\d+))?$/;

/** A version as comparable numbers; null when the text is not a version. */
export function cudaNumbers(version: string | null | undefined): [number, number] | null {
  const match = version == null ? null : CUDA_VERSION.exec(version);
  return match ? [Number(match[1]), Number(match[2] ?? 0)] : null;
}

/**
 * Negative, zero or positive as `a` is below, equal to or above `b`; NaN when either is not a
 * version, so every comparison with the result (`>= 0`, `< 0`) is false.
 */
export function compareCuda(a: string, b: string): number {
  const x = cudaNumbers(a);
  const y = cudaNumbers(b);
  if (!x || !y) return Number.NaN;
  return x[0] - y[0] || x[1] - y[1];
}

/** `gpu.allowedCudaVersions` and `gpu.minCudaVersion` (or the catalog filters `cudaVersions` and `minCudaVersion`). */
export interface CudaConstraint {
  /** Exact set; empty or undefined means any. */
  allowed?: readonly string[];
  /** Numeric floor. */
  min?: string;
}

/**
 * Whether a host's CUDA version meets the constraint. A non-empty exact set is matched exactly
 * (the contract forbids sending it beside a floor); otherwise the floor is compared
 * numerically. An unknown version (null) meets only the empty constraint.
 */
export function cudaVersionSatisfies(version: string | null, constraint: CudaConstraint): boolean {
  if (constraint.allowed && constraint.allowed.length > 0) return version !== null && constraint.allowed.includes(version);
  if (constraint.min !== undefined) return version !== null && compareCuda(version, constraint.min) >= 0;
  return true;
}
