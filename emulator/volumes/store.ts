/**
 * Network volumes (reference OpenAPI CRUD) and global volumes (read-only, seeded by the fixture),
 * as stored. A network volume lives in one data center; a pod can mount it only there.
 */
import type { Fixture } from "../fixture";
import { notFound } from "../http";
import { randomId } from "../ids";
import type { ResourceModule } from "../module";

export type VolumeTier = "STANDARD" | "HIGH_PERFORMANCE";

export interface NetworkVolumeRecord {
  id: string;
  accountId: string;
  name: string;
  size: number;
  dataCenter: string;
  type: VolumeTier;
}

export interface GlobalVolumeRecord {
  id: string;
  accountId: string;
  name: string;
  dataCenterIds: string[];
}

interface VolumesSlice {
  network: NetworkVolumeRecord[];
  global: GlobalVolumeRecord[];
}

export class Volumes implements ResourceModule {
  readonly name = "volumes";
  private network = new Map<string, NetworkVolumeRecord>();
  private global = new Map<string, GlobalVolumeRecord>();

  reset(fixture: Fixture): void {
    this.network = new Map(fixture.networkVolumes.map((v) => [v.id, { ...v }]));
    this.global = new Map(fixture.globalVolumes.map((v) => [v.id, structuredClone(v)]));
  }

  snapshot(): VolumesSlice {
    return { network: [...this.network.values()], global: [...this.global.values()] };
  }

  restore(slice: unknown): void {
    const s = slice as VolumesSlice;
    this.network = new Map(s.network.map((v) => [v.id, v]));
    this.global = new Map(s.global.map((v) => [v.id, v]));
  }

  networkVolume(accountId: string, id: string): NetworkVolumeRecord | undefined {
    const v = this.network.get(id);
    return v && v.accountId === accountId ? v : undefined;
  }

  globalVolume(accountId: string, id: string): GlobalVolumeRecord | undefined {
    const v = this.global.get(id);
    return v && v.accountId === accountId ? v : undefined;
  }

  allNetwork(): NetworkVolumeRecord[] {
    return [...this.network.values()];
  }

  allGlobal(): GlobalVolumeRecord[] {
    return [...this.global.values()];
  }

  /** A network volume of the account; 404 otherwise. */
  own(accountId: string, id: string): NetworkVolumeRecord {
    const v = this.networkVolume(accountId, id);
    if (!v) throw notFound("network volume", id);
    return v;
  }

  create(fields: Omit<NetworkVolumeRecord, "id">): NetworkVolumeRecord {
    const volume = { id: randomId(10), ...fields };
    this.network.set(volume.id, volume);
    return volume;
  }

  delete(volume: NetworkVolumeRecord): void {
    this.network.delete(volume.id);
  }
}
