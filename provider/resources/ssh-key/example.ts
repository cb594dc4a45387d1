/**
 * The smallest SshKey a program can declare: one ed25519 public key line, registered on no
 * account of the emulator's fixture (generated for this example; its private half was never
 * kept). The generic tests (test/provider/every-kind.test.ts) check, create, read and delete it.
 * Types only: a leaf module.
 */
import type { InputValues } from "../definition";
import type { SSH_KEY_INPUTS } from "./inputs";

export const EXAMPLE = {
  publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINCNeCs3zGDrmKdd0bw+MKynwxvpp9IvPpKujnxaIj3K example@compute",
} as const satisfies InputValues<typeof SSH_KEY_INPUTS>;
