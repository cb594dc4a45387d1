/** The ssh key's outputs, listed once (definition.ts says what each column means). */
import type { OutputList } from "../definition";

export const SSH_KEY_OUTPUTS = {
  fingerprint: { type: "string", fixed: true, doc: "The key's SHA-256 fingerprint, as `ssh-keygen -l` prints it (also the resource id)." },
  keyType: { type: "string", fixed: true, doc: "The key's type (`ssh-ed25519`, …)." },
  registeredLine: { type: "string", doc: "The line as the account holds it: the public key with the owner mark added to its comment." },
} as const satisfies OutputList;
