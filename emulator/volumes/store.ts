/**
 * Network volumes (reference OpenAPI CRUD) and global volumes (read-only, seeded by the fixture),
 * as stored. A network volume lives in one data center; a pod can mount it only there.
 */
import type { Fixture } from "../fixture";
import { randomId } from "../ids";
import type { ResourceModule } from "../module";
import { RecordTable } from "../records";

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
  private readonly network = new RecordTable<NetworkVolumeRecord>("network volume");
  private readonly global = new RecordTable<GlobalVolumeRecord>("global volume");

  reset(fixture: Fixture): void {
    this.network.load(fixture.networkVolumes.map((v) => ({ ...v })));
    this.global.load(fixture.globalVolumes.map((v) => structuredClone(v)));
  }

  snapshot(): VolumesSlice {
    return { network: this.network.all(), global: this.global.all() };
  }

  restore(slice: unknown): void {
    const s = slice as VolumesSlice;
    this.network.load(s.network);
    this.global.load(s.global);
  }

  networkVolume(accountId: string, id: string): NetworkVolumeRecord | undefined {
    return this.network.ofAccount(accountId, id);
  }

  globalVolume(accountId: string, id: string): GlobalVolumeRecord | undefined {
    return this.global.ofAccount(accountId, id);
  }

  allNetwork(): NetworkVolumeRecord[] {
    return this.network.all();
  }

  allGlobal(): GlobalVolumeRecord[] {
    return this.global.all();
  }

  /** A network volume of the account; 404 otherwise. */
  own(accountId: string, id: string): NetworkVolumeRecord {
    return this.network.owned(accountId, id);
  }

  create(fields: Omit<NetworkVolumeRecord, "id">): NetworkVolumeRecord {
    return this.network.add({ id: randomId(10), ...fields });
  }

  delete(volume: NetworkVolumeRecord): void {
    this.network.delete(volume);
  }
}
