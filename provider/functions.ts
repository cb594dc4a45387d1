/**
 * Data-source functions for programs: catalog, templates, sandboxes by label, a Hub
 * repository. They run in the program's own process with the same settings as the resources
 * (`compute:baseUrl`, `compute:apiKey`, `compute:teamId`, then COMPUTE_*).
 */
import * as pulumi from "@pulumi/pulumi";
import type { ComputeClient, CpuType, DataCenter, GpuType, HubRepo, Sandbox, SandboxState, Template } from "../sdk";
import { clientFor, stackSettings } from "./runtime/settings";

function programClient(): ComputeClient {
  // runtime.getConfig reads the decrypted stack configuration without turning every result
  // derived from the key into a secret output.
  return clientFor(stackSettings({ get: (key) => pulumi.runtime.getConfig(key) }));
}

/** GPU types with pod availability and per-GPU CUDA versions. */
export function getGpuTypes(): Promise<GpuType[]> {
  return programClient().catalog.gpuTypes({ includeAvailability: true });
}

/** Data centers with per-GPU availability, optionally in one region. */
export function getDataCenters(args: { region?: string } = {}): Promise<DataCenter[]> {
  return programClient().catalog.dataCenters({ regions: args.region, includeGpuAvailability: true });
}

export function getCpuFlavors(): Promise<CpuType[]> {
  return programClient().catalog.cpuFlavors();
}

export function getTemplates(): Promise<Template[]> {
  return programClient().catalog.templates();
}

/** Live sandboxes carrying every given label (and in the given state). */
export function getSandboxes(args: { labels?: Record<string, string>; state?: SandboxState } = {}): Promise<Sandbox[]> {
  return programClient().sandboxes.list({ labels: args.labels, state: args.state });
}

/** A Hub repository by id or `owner/name`. */
export function getHubRepo(ref: string): Promise<HubRepo> {
  return programClient().hub.get(ref);
}
