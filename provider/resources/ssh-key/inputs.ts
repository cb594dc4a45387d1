/** The ssh key's inputs, listed once (definition.ts says what each column means). */
import type { InputList } from "../definition";

export const SSH_KEY_INPUTS = {
  publicKey: {
    type: "string",
    required: true,
    // Another key replaces; the same key with another comment is rewritten in place.
    onChange: "depends",
    doc: "One authorized_keys line, `<type> <base64-key> [comment]` (the contents of `~/.ssh/id_ed25519.pub`); checked at preview.",
  },
} as const satisfies InputList;
