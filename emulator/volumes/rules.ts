/** The volume rules that need the world's data: what a data center offers, and who uses a volume. */
import type { CreateNetworkVolumeRequest } from "../../contract";
import type { Catalog } from "../catalog/store";
import { badRequest, conflict } from "../http";
import type { NetworkVolumeRecord, VolumeTier } from "./store";

/** What the volume rules read of the world: the catalog's data centers, and which pods and endpoints use a volume. */
export interface VolumeRulesWorld {
  readonly catalog: Catalog;
  readonly pods: { podUsingVolume(volumeId: string, now: number): string | undefined };
  readonly serverless: { endpointsUsingVolume(volumeId: string): string[] };
}

/** The data center and tier a new volume gets: the data center must offer network volumes, of that tier. */
export function volumePlacement(world: VolumeRulesWorld, body: CreateNetworkVolumeRequest): { dataCenter: string; type: VolumeTier } {
  const dc = world.catalog.dataCenters.get(body.dataCenter);
  if (!dc) throw badRequest(`Unknown data center "${body.dataCenter}"`);
  if (dc.networkVolumeTypes.length === 0) throw badRequest(`Data center ${dc.id} does not offer network volumes`);
  const type = body.type ?? dc.networkVolumeTypes[0];
  if (!dc.networkVolumeTypes.includes(type)) {
    throw badRequest(`Data center ${dc.id} offers ${dc.networkVolumeTypes.join(", ")} volumes, not ${type}`);
  }
  return { dataCenter: dc.id, type };
}

/**
 * A volume a live pod mounts, or a serverless endpoint lists in `networkVolumes` (its workers
 * attach it as they start), cannot be deleted (409; decision 34 for endpoints).
 */
export function checkDeletable(world: VolumeRulesWorld, volume: NetworkVolumeRecord, now: number): void {
  const pod = world.pods.podUsingVolume(volume.id, now);
  if (pod) throw conflict(`Network volume ${volume.id} is mounted by pod ${pod}; terminate the pod first`);
  const endpoints = world.serverless.endpointsUsingVolume(volume.id);
  if (endpoints.length > 0) {
    const named = `serverless endpoint${endpoints.length > 1 ? "s" : ""} ${endpoints.join(", ")}`;
    throw conflict(`Network volume ${volume.id} is attached to ${named}; remove it from their networkVolumes (or delete them) first`);
  }
}

/** Storage can grow, never shrink (400). */
export function checkResize(volume: NetworkVolumeRecord, size: number | undefined): void {
  if (size !== undefined && size < volume.size) {
    throw badRequest(`size: network volume storage cannot be reduced (current ${volume.size} GB)`);
  }
}
