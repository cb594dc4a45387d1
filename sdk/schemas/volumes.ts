/** Network volumes (reference OpenAPI) and the account's SSH keys. */
import { z } from "zod";

export const VolumeType = z.enum(["STANDARD", "HIGH_PERFORMANCE"]);

export const CreateNetworkVolumeRequest = z.strictObject({
  name: z.string().min(1),
  dataCenter: z.string().min(1),
  size: z.int().min(10).max(4096),
  type: VolumeType.optional(),
});
export type CreateNetworkVolumeRequest = z.infer<typeof CreateNetworkVolumeRequest>;

export const NetworkVolume = z.looseObject({
  id: z.string(),
  name: z.string(),
  size: z.int(),
  dataCenter: z.string(),
  type: VolumeType,
});
export type NetworkVolume = z.infer<typeof NetworkVolume>;
export const ListNetworkVolumesResponse = z.looseObject({ networkVolumes: z.array(NetworkVolume) });

export const SshKeys = z.looseObject({ keys: z.array(z.string()) });
export const UpdateSshKeysRequest = z.strictObject({ keys: z.array(z.string().min(1)) });
