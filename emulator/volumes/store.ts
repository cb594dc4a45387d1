/**
 * Network volumes (reference OpenAPI CRUD) and global volumes (read-only, seeded by the fixture),
 * as stored. A network volume lives in one data center; a pod can mount it only there.
 */
import type { Meter } from "../billing/meter";
import { VOLUME_COMPONENT, VOLUME_RATE_PER_GB_HOUR } from "../billing/rates";
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

/** What the volume store uses of the world: the meter a network volume bills on while it exists. */
export interface VolumesWorld {
  readonly billing: Meter;
}

/** A network volume's use on the billing meter (one per size it has had). */
const meterKey = (volume: NetworkVolumeRecord) => `volume:${volume.id}`;

export class Volumes implements ResourceModule {
  private readonly network = new RecordTable<NetworkVolumeRecord>("network volume");
  private readonly global = new RecordTable<GlobalVolumeRecord>("global volume");

  constructor(private readonly world: VolumesWorld) {}

  /** The fixture's network volumes bill from the reset on (the fixture gives no creation time). */
  reset(fixture: Fixture, now: number): void {
    this.network.load(fixture.networkVolumes.map((v) => ({ ...v })));
    this.global.load(fixture.globalVolumes.map((v) => structuredClone(v)));
    for (const volume of this.network.all()) this.bill(volume, now);
  }

  /** Bills the volume's size at its tier's rate from `from` (the meter ignores a volume already billed). */
  private bill(volume: NetworkVolumeRecord, from: number): void {
    this.world.billing.start(
      {
        key: meterKey(volume),
        accountId: volume.accountId,
        route: "networkVolumes",
        resourceId: volume.id,
        component: VOLUME_COMPONENT[volume.type],
        ratePerHour: volume.size * VOLUME_RATE_PER_GB_HOUR[volume.type],
      },
      from,
    );
  }

  snapshot(): VolumesSlice {
    return { network: this.network.all(), global: this.global.all() };
  }

  /** State files from before billing hold no meter: their volumes bill from the restore on. */
  restore(slice: unknown, _fixture: Fixture, now: number): void {
    const s = slice as VolumesSlice;
    this.network.load(s.network);
    this.global.load(s.global);
    for (const volume of this.network.all()) this.bill(volume, now);
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

  create(fields: Omit<NetworkVolumeRecord, "id">, now: number): NetworkVolumeRecord {
    const volume = this.network.add({ id: randomId(10), ...fields });
    this.bill(volume, now);
    return volume;
  }

  /** A checked new size (rules.ts): it bills at the new size from now on. */
  resize(volume: NetworkVolumeRecord, size: number, now: number): void {
    if (size === volume.size) return;
    this.world.billing.stop(meterKey(volume), now);
    volume.size = size;
    this.bill(volume, now);
  }

  delete(volume: NetworkVolumeRecord, now: number): void {
    this.network.delete(volume);
    this.world.billing.stop(meterKey(volume), now);
  }
}
