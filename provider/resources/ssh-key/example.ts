/**
 * The smallest SshKey a program can declare: one ed25519 public key line, registered on no
 * account of the emulator's fixture (generated for this example; its private half was never
 * kept). The generic tests (test/provider/every-kind.test.ts) check, create, read and delete it.
 * Types only: a leaf module.
 */
import type { ExampleChange, InputValues } from "../definition";
import type { SSH_KEY_INPUTS } from "./inputs";

export const EXAMPLE = {
  publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINCNeCs3zGDrmKdd0bw+MKynwxvpp9IvPpKujnxaIj3K example@compute",
} as const satisfies InputValues<typeof SSH_KEY_INPUTS>;

/**
 * A change of every input the table holds (ExampleChange): each row is performed through the
 * provider protocol by the generic table, from EXAMPLE.
 */
export const CHANGES = {
  // Another key (a new comment alone updates in place: test/provider/environment.test.ts).
  publicKey: { to: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPoMHuh7pTgfLrJKP/1+1bBBIQDC9ezB5fJ3eFEVwyOh changed@compute", does: "replace" },
} as const satisfies Partial<Record<keyof typeof SSH_KEY_INPUTS, ExampleChange>>;
