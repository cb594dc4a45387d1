/**
 * Network volumes (reference OpenAPI CRUD) and global volumes (read-only, seeded by the fixture).
 * A network volume lives in one data center; a pod can mount it only there (see pods.ts).
 */
import { CreateNetworkVolumeRequest, UpdateNetworkVolumeRequest } from "../../contract";
import type { Fixture } from "../fixture";
import { badRequest, conflict, json, noContent, notFound } from "../http";
import { randomId } from "../ids";
import type { ResourceModule, World } from "../module";
import { route, type Route } from "../router";

export interface NetworkVolumeRecord {
  id: string;
  accountId: string;
  name: string;
  size: number;
  dataCenter: string;
  type: "STANDARD" | "HIGH_PERFORMANCE";
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

  constructor(private readonly world: World) {}

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

  private view(v: NetworkVolumeRecord) {
    return { id: v.id, name: v.name, size: v.size, dataCenter: v.dataCenter, type: v.type };
  }

  private own(accountId: string, id: string): NetworkVolumeRecord {
    const v = this.networkVolume(accountId, id);
    if (!v) throw notFound("network volume", id);
    return v;
  }

  routes(): Array<Route<unknown>> {
    return [
      route({
        method: "GET",
        path: "/v2/network-volumes",
        family: "network-volumes",
        handle: (op) =>
          json(200, {
            networkVolumes: this.allNetwork()
              .filter((v) => v.accountId === op.account.id)
              .map((v) => this.view(v)),
          }),
      }),
      route({
        method: "POST",
        path: "/v2/network-volumes",
        family: "network-volumes",
        body: CreateNetworkVolumeRequest,
        handle: (op) => {
          const dc = this.world.catalog.dataCenter(op.body.dataCenter);
          if (!dc) throw badRequest(`Unknown data center "${op.body.dataCenter}"`);
          if (dc.networkVolumeTypes.length === 0) throw badRequest(`Data center ${dc.id} does not offer network volumes`);
          const type = op.body.type ?? (dc.networkVolumeTypes[0] as NetworkVolumeRecord["type"]);
          if (!dc.networkVolumeTypes.includes(type)) {
            throw badRequest(`Data center ${dc.id} offers ${dc.networkVolumeTypes.join(", ")} volumes, not ${type}`);
          }
          const volume: NetworkVolumeRecord = {
            id: randomId(10),
            accountId: op.account.id,
            name: op.body.name,
            size: op.body.size,
            dataCenter: dc.id,
            type,
          };
          this.network.set(volume.id, volume);
          return json(201, this.view(volume));
        },
      }),
      route({
        method: "GET",
        path: "/v2/network-volumes/:id",
        family: "network-volumes",
        handle: (op) => json(200, this.view(this.own(op.account.id, op.params.id))),
      }),
      route({
        method: "PATCH",
        path: "/v2/network-volumes/:id",
        family: "network-volumes",
        body: UpdateNetworkVolumeRequest,
        handle: (op) => {
          const volume = this.own(op.account.id, op.params.id);
          if (op.body.size !== undefined && op.body.size < volume.size) {
            throw badRequest(`size: network volume storage cannot be reduced (current ${volume.size} GB)`);
          }
          if (op.body.name !== undefined) volume.name = op.body.name;
          if (op.body.size !== undefined) volume.size = op.body.size;
          return json(200, this.view(volume));
        },
      }),
      route({
        method: "DELETE",
        path: "/v2/network-volumes/:id",
        family: "network-volumes",
        handle: (op) => {
          const volume = this.own(op.account.id, op.params.id);
          const user = this.world.pods.podUsingVolume(volume.id, op.now);
          if (user) throw conflict(`Network volume ${volume.id} is mounted by pod ${user}; terminate the pod first`);
          this.network.delete(volume.id);
          return noContent();
        },
      }),
      route({
        method: "GET",
        path: "/v2/global-volumes",
        family: "network-volumes",
        handle: (op) =>
          json(200, {
            globalVolumes: [...this.global.values()]
              .filter((v) => v.accountId === op.account.id)
              .map(({ accountId: _a, ...v }) => v),
          }),
      }),
    ];
  }
}
