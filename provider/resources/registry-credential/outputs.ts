/** The registry credential's outputs, listed once (definition.ts says what each column means). */
import type { OutputList } from "../definition";

export const REGISTRY_CREDENTIAL_OUTPUTS = {
  registryId: { type: "string", fixed: true, doc: "The service's credential id (also the resource id): what `registryId` of a template, pod or endpoint takes." },
  serviceName: { type: "string", fixed: true, doc: "The name the service holds: the program's name followed by the owner mark." },
} as const satisfies OutputList;
