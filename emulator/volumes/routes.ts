/** `/v2/network-volumes` (full CRUD) and `/v2/global-volumes` (read-only). */
import { CreateNetworkVolumeRequest, UpdateNetworkVolumeRequest } from "../../contract";
import { json, noContent } from "../http";
import type { World } from "../module";
import { familyRoute, type Route } from "../router";
import { checkDeletable, checkResize, volumePlacement } from "./rules";
import { globalVolumeView, networkVolumeView } from "./view";

const route = familyRoute("network-volumes");

export function volumeRoutes(world: World): Array<Route<unknown>> {
  const volumes = world.volumes;
  return [
    route({
      method: "GET",
      path: "/v2/network-volumes",
      handle: (op) =>
        json(200, {
          networkVolumes: volumes
            .allNetwork()
            .filter((v) => v.accountId === op.account.id)
            .map(networkVolumeView),
        }),
    }),
    route({
      method: "POST",
      path: "/v2/network-volumes",
      body: CreateNetworkVolumeRequest,
      handle: (op) => {
        const placed = volumePlacement(world, op.body);
        const volume = volumes.create({ accountId: op.account.id, name: op.body.name, size: op.body.size, ...placed });
        return json(201, networkVolumeView(volume));
      },
    }),
    route({
      method: "GET",
      path: "/v2/network-volumes/:id",
      handle: (op) => json(200, networkVolumeView(volumes.own(op.account.id, op.params.id))),
    }),
    route({
      method: "PATCH",
      path: "/v2/network-volumes/:id",
      body: UpdateNetworkVolumeRequest,
      handle: (op) => {
        const volume = volumes.own(op.account.id, op.params.id);
        checkResize(volume, op.body.size);
        if (op.body.name !== undefined) volume.name = op.body.name;
        if (op.body.size !== undefined) volume.size = op.body.size;
        return json(200, networkVolumeView(volume));
      },
    }),
    route({
      method: "DELETE",
      path: "/v2/network-volumes/:id",
      handle: (op) => {
        const volume = volumes.own(op.account.id, op.params.id);
        checkDeletable(world, volume, op.now);
        volumes.delete(volume);
        return noContent();
      },
    }),
    route({
      method: "GET",
      path: "/v2/global-volumes",
      handle: (op) =>
        json(200, {
          globalVolumes: volumes
            .allGlobal()
            .filter((v) => v.accountId === op.account.id)
            .map(globalVolumeView),
        }),
    }),
  ];
}
