/**
 * Templates (reference OpenAPI): their category, the create and update requests (served by the
 * emulator; the SDK does not send them) and which kind of template a pod, a sandbox or a
 * serverless endpoint may be made from. Built from the pod's container fields so the
 * violation wording is the same as everywhere else.
 */
import { z } from "zod";
import { majorMinor } from "./common";
import { PersistentMount, optionalContainerFields } from "./pods";

export const TemplateCategory = z.enum(["CPU", "NVIDIA", "AMD"]);
export type TemplateCategory = z.infer<typeof TemplateCategory>;

export const CreateTemplateRequest = z.strictObject({
  ...optionalContainerFields,
  name: z.string().min(1),
  image: z.string().min(1),
  // Templates support only a persistent mount; `network` is an unknown property (422).
  mounts: z.strictObject({ persistent: PersistentMount.optional() }).optional(),
  serverless: z.boolean().optional(),
  public: z.boolean().optional(),
  category: TemplateCategory.optional(),
  startSsh: z.boolean().optional(),
  startJupyter: z.boolean().optional(),
  allowedCudaVersions: z.array(majorMinor).optional(),
});
export type CreateTemplateRequest = z.infer<typeof CreateTemplateRequest>;

export const UpdateTemplateRequest = CreateTemplateRequest.partial();
export type UpdateTemplateRequest = z.infer<typeof UpdateTemplateRequest>;

/** What a template is used for: pod create and update, sandbox create, endpoint create, cluster create. */
export type TemplateUse = "pod" | "sandbox" | "endpoint" | "cluster";

/**
 * v2 template rule 6 and the reference OpenAPI: endpoints take serverless templates only, pods
 * and sandboxes never take one (422). The `templateId` violation, or undefined when the
 * template fits.
 */
export function templateUseViolation(template: { id: string; serverless: boolean }, use: TemplateUse): string | undefined {
  if (use === "endpoint") {
    return template.serverless ? undefined : `templateId: "${template.id}" is a pod template; endpoints need a serverless template`;
  }
  const users = { pod: "pods", sandbox: "sandboxes", cluster: "clusters" }[use];
  return template.serverless ? `templateId: "${template.id}" is a serverless template; ${users} need a pod template` : undefined;
}
