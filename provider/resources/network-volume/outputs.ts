/** The NetworkVolume's outputs, listed once. */
import type { OutputList } from "../definition";

export const NETWORK_VOLUME_OUTPUTS = {
  volumeId: { type: "string", fixed: true, doc: "The service's volume id (also the resource id): what a pod's `mounts.network[].volumeId` and an endpoint's `networkVolumeIds` take." },
  serviceName: { type: "string", doc: "The name the service holds: the program's name followed by the owner mark." },
  appliedSize: { type: "integer", doc: "The volume's size in GB when last read." },
  appliedType: { type: "string", nullable: true, fixed: true, doc: "The storage tier the service gave the volume." },
  appliedDataCenterId: { type: "string", fixed: true, doc: "The data center the volume is in." },
} as const satisfies OutputList;
