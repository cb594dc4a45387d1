/** Network volumes (reference OpenAPI) and the account's SSH keys. */
import { z } from "zod";
import { openEnum, optional, tolerantList } from "./reading";

export const VolumeType = z.enum(["STANDARD", "HIGH_PERFORMANCE"]);

export const CreateNetworkVolumeRequest = z.strictObject({
  name: z.string().min(1),
  dataCenter: z.string().min(1),
  size: z.int().min(10).max(4096),
  type: VolumeType.optional(),
});
export type CreateNetworkVolumeRequest = z.infer<typeof CreateNetworkVolumeRequest>;

/**
 * NetworkVolume, read tolerantly (reading.ts): `id`, `name`, `dataCenter` (create recovery and
 * pod mounts match on them) and `size` are required; a storage tier this SDK does not know
 * reads as absent rather than making the volume unreadable.
 */
export const NetworkVolume = z.looseObject({
  id: z.string(),
  name: z.string(),
  size: z.int(),
  dataCenter: z.string(),
  type: optional(openEnum(VolumeType.options, undefined)),
});
export type NetworkVolume = z.output<typeof NetworkVolume>;
export const ListNetworkVolumesResponse = tolerantList("networkVolumes", NetworkVolume);

export const SshKeys = z.looseObject({ keys: z.array(z.string()) });
export const UpdateSshKeysRequest = z.strictObject({ keys: z.array(z.string().min(1)) });
