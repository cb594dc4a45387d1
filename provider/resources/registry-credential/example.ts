/**
 * The smallest RegistryCredential a program can declare: a username and a password (both needed
 * to create; not a real secret). The generic tests (test/provider/every-kind.test.ts) check,
 * create, read and delete it. Types only: a leaf module.
 */
import type { ExampleChange, InputValues } from "../definition";
import type { REGISTRY_CREDENTIAL_INPUTS } from "./inputs";

export const EXAMPLE = {
  username: "robot",
  password: "example-token-not-a-secret",
} as const satisfies InputValues<typeof REGISTRY_CREDENTIAL_INPUTS>;

/**
 * A change of every input the table holds (ExampleChange): each row is performed through the
 * provider protocol by the generic table, from EXAMPLE.
 */
export const CHANGES = {
  name: { to: "renamed-registry" },
  username: { to: "robot-2", does: "replace" },
  password: { to: "another-token-not-a-secret", does: "replace" },
} as const satisfies Partial<Record<keyof typeof REGISTRY_CREDENTIAL_INPUTS, ExampleChange>>;
