/** The registry credential's inputs, listed once (definition.ts says what each column means). */
import type { InputList } from "../definition";

export const REGISTRY_CREDENTIAL_INPUTS = {
  name: { type: "string", onChange: "replace", doc: "Credential name; default: the resource name plus a suffix. The service holds it followed by the owner mark." },
  // Replaces once recorded; the first value after an import is recorded in place.
  username: { type: "string", secret: true, onChange: "depends", doc: "Registry username. Secret, write-only (the service never answers it); needed to create. Any change makes a new credential." },
  password: { type: "string", secret: true, onChange: "depends", doc: "Registry password or token. Secret, write-only; needed to create. Any change makes a new credential." },
} as const satisfies InputList;
