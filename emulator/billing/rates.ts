/**
 * Rates the catalog does not give, decided by the emulator (docs/emulator.md, "Billing"): the
 * catalog prices compute (a GPU type's `price`, a CPU flavor's per-vCPU price), which pods,
 * cluster members and serverless workers bill at, the same prices the estimate reads. It lists
 * no storage price, so a network volume bills at these per-GB rates, round numbers chosen so a
 * test can reckon them by hand; pod and serverless disk, the serverless fee and cluster
 * networking bill nothing here (their components are present and 0).
 */
import type { VolumeType } from "../../contract";

type VolumeTier = (typeof VolumeType.options)[number];

/** Dollars per GB per hour of a network volume, by tier (about $0.073 and $0.146 per GB-month). */
export const VOLUME_RATE_PER_GB_HOUR: Record<VolumeTier, number> = {
  STANDARD: 0.0001,
  HIGH_PERFORMANCE: 0.0002,
};

/** A network volume's component on `/v2/billing/network-volumes`, by tier. */
export const VOLUME_COMPONENT: Record<VolumeTier, string> = {
  STANDARD: "standardAmount",
  HIGH_PERFORMANCE: "highPerformanceAmount",
};
