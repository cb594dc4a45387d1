/**
 * The smallest RegistryCredential a program can declare: a username and a password (both needed
 * to create; not a real secret). The generic tests (test/provider/every-kind.test.ts) check,
 * create, read and delete it. Types only: a leaf module.
 */
import type { InputValues } from "../definition";
import type { REGISTRY_CREDENTIAL_INPUTS } from "./inputs";

export const EXAMPLE = {
  username: "robot",
  password: "example-token-not-a-secret",
} as const satisfies InputValues<typeof REGISTRY_CREDENTIAL_INPUTS>;
