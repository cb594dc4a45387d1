/** Volume records → wire shapes (contract `NetworkVolume`; global volumes as the seed lists them). */
import type { z } from "zod";
import type { NetworkVolume } from "../../contract";
import type { GlobalVolumeRecord, NetworkVolumeRecord } from "./store";

export type NetworkVolumeView = z.input<typeof NetworkVolume>;

export function networkVolumeView(v: NetworkVolumeRecord): NetworkVolumeView {
  return { id: v.id, name: v.name, size: v.size, dataCenter: v.dataCenter, type: v.type };
}

export function globalVolumeView({ accountId: _owner, ...v }: GlobalVolumeRecord): Omit<GlobalVolumeRecord, "accountId"> {
  return v;
}
