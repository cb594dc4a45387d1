/**
 * Pulumi resources for the Compute Service v2: `Pod` and `Sandbox`, and data-source
 * functions. See docs/provider.md.
 */
export { Pod, type PodArgs, type PodGpuArgs, type PodCpuArgs, type PodMountsArgs } from "./pod";
export { Sandbox, type SandboxArgs } from "./sandbox";
export { getCpuFlavors, getDataCenters, getGpuTypes, getHubRepo, getSandboxes, getTemplates } from "./functions";
export type { PlacementCandidate } from "../sdk";
