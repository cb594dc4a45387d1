/**
 * Pulumi resources for the Compute Service v2: one class per resource of the registry
 * (provider/resources/), and data-source functions. See docs/provider.md.
 */
export {
  classes,
  Cluster,
  NetworkVolume,
  Pod,
  RegistryCredential,
  Sandbox,
  ServerlessEndpoint,
  SshKey,
  Template,
  type ClusterArgs,
  type ClusterComputeArgs,
  type NetworkVolumeArgs,
  type PodArgs,
  type PodCpuArgs,
  type PodGpuArgs,
  type PodMountsArgs,
  type RegistryCredentialArgs,
  type SandboxArgs,
  type ServerlessEndpointArgs,
  type SshKeyArgs,
  type TemplateArgs,
} from "./classes";
export {
  getCluster,
  getCpuFlavors,
  getDataCenters,
  getGpuTypes,
  getHubRepo,
  getNetworkVolume,
  getPod,
  getRegistryCredential,
  getSandbox,
  getSandboxes,
  getServerlessEndpoint,
  getSshKey,
  getTemplate,
  getTemplates,
  type LookupArgs,
} from "./functions";
export type { PlacementCandidate } from "../sdk";
