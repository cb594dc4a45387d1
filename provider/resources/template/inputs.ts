/**
 * The Template's inputs, listed once (see provider/resources/pod/inputs.ts). Every one changes
 * in place (PATCH). A setting removed from the program is left as it is on the service (the
 * PATCH semantics: an omitted member is unchanged); `allowedCudaVersions: []` clears the CUDA
 * constraint.
 */
import { stringList as strings } from "../../properties";
import { containerInput } from "../container";
import type { InputList } from "../definition";

export const TEMPLATE_INPUTS = {
  name: { type: "string", onChange: "update", doc: "Template name; default: the resource name plus a suffix. The service holds it followed by the owner mark." },
  image: { type: "string", required: true, onChange: "update", doc: "Container image." },
  args: containerInput("args", "update", "The command as one raw string (shell form, or the JSON exec form)."),
  cmd: containerInput("cmd", "update", "Exec-form CMD."),
  entrypoint: containerInput("entrypoint", "update", "Exec-form ENTRYPOINT."),
  disk: containerInput("disk", "update", "Container disk in GB (default 20)."),
  env: containerInput("env", "update", "Environment variables of what is made from the template."),
  ports: containerInput("ports", "update", "Exposed ports, each `port/protocol` (`8888/http`, `22/tcp`)."),
  registryId: containerInput("registryId", "update", "Registry credential id (a `RegistryCredential`'s `registryId`) for a private image."),
  mounts: {
    type: "object",
    properties: { persistent: { type: "object", optional: true, properties: { size: { type: "integer" }, path: { type: "string" } } } },
    onChange: "update",
    doc: "Storage: one `persistent` volume (size GB, path); templates take no network volume.",
  },
  category: { type: "string", enum: ["CPU", "NVIDIA", "AMD"], onChange: "update", doc: "`NVIDIA` (default), `AMD` or `CPU`." },
  isPublic: { type: "boolean", onChange: "update", doc: "Visible to every user of the service (default false)." },
  serverless: { type: "boolean", onChange: "update", doc: "A template for serverless endpoints (true) or for pods and sandboxes (false, default)." },
  startSsh: { type: "boolean", onChange: "update", doc: "Provision SSH in what is made from it (`PUBLIC_KEY`; default true)." },
  startJupyter: { type: "boolean", onChange: "update", doc: "Start Jupyter in what is made from it (`JUPYTER_PASSWORD`; default true)." },
  allowedCudaVersions: { ...strings, onChange: "update", doc: "Acceptable CUDA versions (`major.minor`) of GPU pods and endpoints made from it; `[]` clears the constraint." },
} as const satisfies InputList;
