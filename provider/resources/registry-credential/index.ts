/**
 * `compute:index:RegistryCredential`: a username and password for a private container
 * registry, which templates, pods and endpoints name by `registryId` to pull their image.
 *
 * The service never answers the username or the password and has no update, so:
 * - both are secret inputs (ciphertext in the state, `[secret]` in every message);
 * - any change makes a new credential, created before the old one is deleted, so the
 *   templates, pods and endpoints of the stack that name it by `registryId` move over first
 *   (an update in place). A pod made from a template keeps the credential the template gave
 *   it (templates apply once): the service then refuses the old one's delete (400), and the
 *   error says what to change;
 * - a credential an interrupted run left behind is adopted as that run created it: from the
 *   same program, so with the same secrets (they cannot be read back to check; a password
 *   changed between the killed run and the next is not seen: change it again, or replace);
 * - an imported credential has no recorded username or password: the first values the program
 *   gives are recorded, not a replacement.
 */
import { BadRequestError, ComputeError, CreateRegistryRequest, apiFailureLine, type ComputeClient, type Registry } from "../../../sdk";
import type { CheckFailure } from "../check-failures";
import { inputsOf, same, type CheckedInputs, type DiffResult, type OutputValues, type Props, type Recorded, type ResourceDefinition } from "../definition";
import { CHANGES, EXAMPLE } from "./example";
import { REGISTRY_CREDENTIAL_INPUTS } from "./inputs";
import { REGISTRY_CREDENTIAL_OUTPUTS } from "./outputs";
import { markInName, presentOnly, programName, schemaViolations, toWire, uniquelyNamed } from "../wire";

export type RegistryCredentialInputs = CheckedInputs<typeof REGISTRY_CREDENTIAL_INPUTS>;
type RegistryCredentialFacts = OutputValues<typeof REGISTRY_CREDENTIAL_OUTPUTS>;

const FIELDS = ["name", "username", "password"] as const;
const WRITE_ONLY = ["username", "password"] as const;

/** A new credential needs both secrets; a recorded one (an import) may not have them yet. */
function needsSecrets(inputs: RegistryCredentialInputs, previous: Props): CheckFailure[] {
  if (previous.name !== undefined) return [];
  return WRITE_ONLY.filter((key) => inputs[key] === undefined).map((key) => ({ property: key, reason: "is required to create a registry credential" }));
}

/** The secrets' own rule, beyond the input list's table: a change replaces, but a first value after an import is recorded. */
function diff(olds: Recorded<RegistryCredentialInputs, RegistryCredentialFacts>, news: RegistryCredentialInputs, table: DiffResult): DiffResult {
  const result = { replaces: [...table.replaces], updates: [...table.updates] };
  for (const key of WRITE_ONLY) {
    const before = olds[key];
    if (same(before, news[key])) continue;
    if (before === undefined) result.updates.push(key);
    else result.replaces.push(key);
  }
  return result;
}

/** The delete, with what to do when a pod or an endpoint still pulls with the credential. */
async function deleteCredential(api: ComputeClient, id: string): Promise<void> {
  try {
    await api.registries.delete(id);
  } catch (error) {
    if (!(error instanceof BadRequestError)) throw error;
    throw new ComputeError(
      `${apiFailureLine(error)}. Nothing was deleted. A pod or endpoint keeps the credential it was made with (from its template too): ` +
        "set its `registry` (pod) or `registryId` (endpoint) to the new credential, an update in place, or replace it; then run `pulumi up` again",
      { cause: error },
    );
  }
}

export const registryCredentialResource = {
  name: "RegistryCredential",
  kind: "registry credential",
  description: "A container registry credential (username and password, write-only) for private images.",
  inputs: REGISTRY_CREDENTIAL_INPUTS,
  outputs: REGISTRY_CREDENTIAL_OUTPUTS,
  idOutput: "registryId",
  deletedAs: "deleted",

  family: (api) => ({ get: (id) => api.registries.get(id), page: () => api.registries.page(), delete: (id) => deleteCredential(api, id) }),
  states: presentOnly("registryId"),
  owner: markInName,

  // The secrets' own rules (non-empty) where they are given; `checkHook` says when they must be.
  violations: (inputs) =>
    schemaViolations(CreateRegistryRequest.partial({ username: true, password: true }), toWire(inputs, FIELDS, {}), {}),
  checkHook: (_context, inputs, previous) => needsSecrets(inputs, previous),
  // Nothing to match: the secrets cannot be read back, and a hash of them must not ride in a name.
  markSpec: () => ({}),
  create: async ({ api }, request) => ({ live: await api.registries.create(toWire(request, FIELDS, {}) as CreateRegistryRequest, { uniqueName: uniquelyNamed(request) }) }),

  facts: (registry): RegistryCredentialFacts => ({ registryId: registry.id, serviceName: registry.name }),
  imported: (registry) => ({ name: programName(registry.name) }),
  refreshed(olds, registry) {
    return { ...inputsOf(REGISTRY_CREDENTIAL_INPUTS, olds), name: programName(registry.name) };
  },
  diff,
  example: EXAMPLE,
  exampleChanges: CHANGES,
} satisfies ResourceDefinition<RegistryCredentialInputs, Registry, RegistryCredentialFacts>;
