/**
 * Pulumi resources for the Compute Service v2: one class per resource of the registry
 * (provider/resources/), and data-source functions. See docs/provider.md.
 */
export { Pod, Sandbox, type PodArgs, type PodCpuArgs, type PodGpuArgs, type PodMountsArgs, type SandboxArgs } from "./classes";
export { getCpuFlavors, getDataCenters, getGpuTypes, getHubRepo, getSandboxes, getTemplates } from "./functions";
export type { PlacementCandidate } from "../sdk";
