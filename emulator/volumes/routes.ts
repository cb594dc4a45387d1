/** `/v2/network-volumes` (full CRUD) and `/v2/global-volumes` (read-only). */
import { CreateNetworkVolumeRequest, UpdateNetworkVolumeRequest } from "../../contract";
import { json, noContent } from "../http";
import { familyRoutes } from "../router";
import { checkDeletable, checkResize, volumePlacement, type VolumeRulesWorld } from "./rules";
import type { Volumes } from "./store";
import { globalVolumeView, networkVolumeView } from "./view";

export const volumeRoutes = familyRoutes("network-volumes", (route, world: VolumeRulesWorld & { readonly volumes: Volumes }) => [
  route({
    method: "GET",
    path: "/v2/network-volumes",
    handle: (op) =>
      json(200, {
        networkVolumes: world.volumes
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
      const volume = world.volumes.create({ accountId: op.account.id, name: op.body.name, size: op.body.size, ...placed }, op.now);
      return json(201, networkVolumeView(volume));
    },
  }),
  route({
    method: "GET",
    path: "/v2/network-volumes/:id",
    handle: (op) => json(200, networkVolumeView(world.volumes.own(op.account.id, op.params.id))),
  }),
  route({
    method: "PATCH",
    path: "/v2/network-volumes/:id",
    body: UpdateNetworkVolumeRequest,
    handle: (op) => {
      const volume = world.volumes.own(op.account.id, op.params.id);
      checkResize(volume, op.body.size);
      if (op.body.name !== undefined) volume.name = op.body.name;
      if (op.body.size !== undefined) world.volumes.resize(volume, op.body.size, op.now);
      return json(200, networkVolumeView(volume));
    },
  }),
  route({
    method: "DELETE",
    path: "/v2/network-volumes/:id",
    handle: (op) => {
      const volume = world.volumes.own(op.account.id, op.params.id);
      checkDeletable(world, volume, op.now);
      world.volumes.delete(volume, op.now);
      return noContent();
    },
  }),
  route({
    method: "GET",
    path: "/v2/global-volumes",
    handle: (op) =>
      json(200, {
        globalVolumes: world.volumes
          .allGlobal()
          .filter((v) => v.accountId === op.account.id)
          .map(globalVolumeView),
      }),
  }),
]);
