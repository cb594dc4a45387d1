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

/** An authorized_keys line as `PUT /v2/account/ssh-keys` takes it (reference OpenAPI pattern). */
export const SSH_KEY_LINE = /^(ssh|ecdsa|sk)-[^\s]+ [^\s]+([ \t][^\n\r]*)?$/;

/**
 * What is wrong with one public key line, or undefined: the service's pattern, and (what the
 * pattern cannot see) a key body that is not base64 of a key of the type the line names.
 */
export function sshKeyLineViolation(line: string): string | undefined {
  const format = 'must be one authorized_keys line "<type> <base64-key> [comment]", such as the contents of ~/.ssh/id_ed25519.pub';
  if (!SSH_KEY_LINE.test(line)) return format;
  const [type, body] = line.split(/[ \t]+/) as [string, string];
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return `${format}: the key is not base64`;
  const blob = Buffer.from(body, "base64");
  const length = blob.length >= 4 ? blob.readUInt32BE(0) : -1;
  const named = length > 0 && length + 4 <= blob.length ? blob.subarray(4, 4 + length).toString("latin1") : undefined;
  if (named !== type) return `${format}: the key body is not a ${type} key${named ? ` (it holds a ${named} key)` : ""}`;
  return undefined;
}
