/**
 * Request shapes the emulator serves but the SDK does not send (templates, network-volume
 * update), after the reference OpenAPI. Built from the shared pieces of sdk/schemas so the
 * violation wording is the same as everywhere else.
 */
import { z } from "zod";
import { PersistentMount, containerFields, majorMinor } from "../sdk/schemas";

const templateFields = {
  ...containerFields,
  name: z.string().min(1),
  image: z.string().min(1),
  // Templates support only a persistent mount; `network` is an unknown property (422).
  mounts: z.strictObject({ persistent: PersistentMount.optional() }),
  serverless: z.boolean(),
  public: z.boolean(),
  category: z.enum(["CPU", "NVIDIA", "AMD"]),
  startSsh: z.boolean(),
  startJupyter: z.boolean(),
  allowedCudaVersions: z.array(majorMinor),
};

export const CreateTemplateRequest = z.strictObject({
  ...templateFields,
  args: templateFields.args.optional(),
  cmd: templateFields.cmd.optional(),
  entrypoint: templateFields.entrypoint.optional(),
  disk: templateFields.disk.optional(),
  env: templateFields.env.optional(),
  ports: templateFields.ports.optional(),
  registry: templateFields.registry.optional(),
  mounts: templateFields.mounts.optional(),
  serverless: templateFields.serverless.optional(),
  public: templateFields.public.optional(),
  category: templateFields.category.optional(),
  startSsh: templateFields.startSsh.optional(),
  startJupyter: templateFields.startJupyter.optional(),
  allowedCudaVersions: templateFields.allowedCudaVersions.optional(),
});
export type CreateTemplateRequest = z.infer<typeof CreateTemplateRequest>;

export const UpdateTemplateRequest = CreateTemplateRequest.partial();
export type UpdateTemplateRequest = z.infer<typeof UpdateTemplateRequest>;

export const UpdateNetworkVolumeRequest = z
  .strictObject({ name: z.string().min(1).optional(), size: z.int().min(10).max(4096).optional() })
  .refine((body) => Object.keys(body).length > 0, { message: "must set at least one of name, size" });
export type UpdateNetworkVolumeRequest = z.infer<typeof UpdateNetworkVolumeRequest>;
