/** Network volumes (reference OpenAPI) and the account's SSH keys. */
import { z } from "zod";
import { openEnum, optional, tolerantList } from "./reading";

export const VolumeType = z.enum(["STANDARD", "HIGH_PERFORMANCE"]);

/** A network volume's size in GB, on create and on update. */
const volumeSize = z.int().min(10).max(4096);

export const CreateNetworkVolumeRequest = z.strictObject({
  name: z.string().min(1),
  dataCenter: z.string().min(1),
  size: volumeSize,
  type: VolumeType.optional(),
});
export type CreateNetworkVolumeRequest = z.infer<typeof CreateNetworkVolumeRequest>;

/** PATCH of a network volume (served by the emulator; the SDK does not send it). */
export const UpdateNetworkVolumeRequest = z
  .strictObject({ name: z.string().min(1).optional(), size: volumeSize.optional() })
  .refine((body) => Object.keys(body).length > 0, { message: "must set at least one of name, size" });
export type UpdateNetworkVolumeRequest = z.infer<typeof UpdateNetworkVolumeRequest>;

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
