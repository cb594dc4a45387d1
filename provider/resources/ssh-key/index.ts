/**
 * `compute:index:SshKey`: one public key among the account's registered SSH keys, which pods
 * created with `startSsh` afterwards receive as `PUBLIC_KEY` (make such a pod depend on the
 * key). The account's set is replaced whole by the service, so the resource adds its own line
 * on create and removes only its own on delete, keeping every key it does not manage
 * (sdk/ssh-keys.ts: read, merge, write, read back).
 *
 * Identity: the key's SHA-256 fingerprint (the resource id; `pulumi import` takes it). Owner
 * mark: the last word of the line's comment (`pulumi-compute-owner=<mark>`), the one place a
 * key line has room for it; a key already registered without this resource's mark is refused
 * at preview (import it to manage it), so a destroy never removes a key someone added by hand.
 */
import { fingerprintOf, keyWithMark, keyWithoutMark, markOfKey, parseOwnerMark, sshKeyLineViolation, type RegisteredKey } from "../../../sdk";
import type { CheckFailure } from "../check-failures";
import { isUnknown } from "../unknowns";
import type { CheckedInputs, DiffResult, HookContext, OutputValues, Props, Recorded, ResourceDefinition } from "../definition";
import { presentOnly } from "../wire";
import { CHANGES, EXAMPLE } from "./example";
import { SSH_KEY_INPUTS } from "./inputs";
import { SSH_KEY_OUTPUTS } from "./outputs";

export type SshKeyInputs = CheckedInputs<typeof SSH_KEY_INPUTS>;
type SshKeyFacts = OutputValues<typeof SSH_KEY_OUTPUTS>;

/**
 * At preview (reads only): a key already registered must be this resource's own (left by an
 * interrupted run), never one added by hand or by another stack.
 */
async function notRegisteredElsewhere(context: HookContext<RegisteredKey>, inputs: SshKeyInputs, previous: Props): Promise<CheckFailure[]> {
  const line = inputs.publicKey;
  if (typeof line !== "string" || isUnknown(line) || sshKeyLineViolation(line) !== undefined) return [];
  const id = fingerprintOf(line);
  if (typeof previous.publicKey === "string" && fingerprintOf(previous.publicKey) === id) return [];
  const registered = await context.api.sshKeys
    .list()
    .catch(() => undefined);
  const found = registered?.find((key) => key.id === id);
  if (!found) return [];
  const owner = parseOwnerMark(markOfKey(found.line));
  if (owner && owner.base === parseOwnerMark(inputs.ownerMark)?.base) return [];
  const by = owner ? `by ${owner.label || "another stack resource"}` : "outside any stack";
  return [{ property: "publicKey", reason: `the key ${id} is already registered on the account ${by}; import it to manage it here (pulumi import compute:index:SshKey <name> ${id}), or use another key` }];
}

/** The key's identity decides: another key is a new resource; the same key with another comment is the same one. */
function diff(olds: Recorded<SshKeyInputs, SshKeyFacts>, news: SshKeyInputs, table: DiffResult): DiffResult {
  const result = { replaces: [...table.replaces], updates: [...table.updates] };
  // A line read from a file ends with a newline: blanks around it are not a change.
  const before = typeof olds.publicKey === "string" ? olds.publicKey.trim() : undefined;
  const after = typeof news.publicKey === "string" && !isUnknown(news.publicKey) ? news.publicKey.trim() : news.publicKey;
  if (before === after) return result;
  if (typeof after === "string" && !isUnknown(after) && before !== undefined && fingerprintOf(after) === fingerprintOf(before)) result.updates.push("publicKey");
  else result.replaces.push("publicKey");
  return result;
}

export const sshKeyResource = {
  name: "SshKey",
  kind: "ssh key",
  description: "One SSH public key registered on the account; pods created with `startSsh` afterwards receive it.",
  inputs: SSH_KEY_INPUTS,
  outputs: SSH_KEY_OUTPUTS,
  idOutput: "fingerprint",
  deletedAs: "removed",

  family: (api) => ({
    get: (id) => api.sshKeys.get(id),
    page: async () => ({ items: await api.sshKeys.list(), setAside: [] }),
    delete: (id) => api.sshKeys.remove(id),
  }),
  states: presentOnly("fingerprint"),
  owner: {
    read: (key) => markOfKey(key.line),
    write: (request, mark) => {
      request.publicKey = keyWithMark(String(request.publicKey), mark);
    },
  },

  violations: (inputs) => {
    const problem = typeof inputs.publicKey === "string" ? sshKeyLineViolation(inputs.publicKey.trim()) : undefined;
    return problem ? [`publicKey: ${problem}`] : [];
  },
  checkHook: notRegisteredElsewhere,
  markSpec: () => ({}),
  async create({ api }, request) {
    const line = String(request.publicKey);
    const before = await api.sshKeys.list();
    const taken = before.find((key) => key.id === fingerprintOf(line));
    if (taken) {
      // The same key under another generation of this stack resource (a replacement whose
      // state entry was lost, a targeted --replace): a key is one line per account, so it is
      // this resource's, and takes this generation's mark.
      if (parseOwnerMark(markOfKey(taken.line))?.base === parseOwnerMark(markOfKey(line))?.base) return { live: await api.sshKeys.rewrite(taken.id, line) };
      // Checked at preview; re-checked here for a key registered since.
      throw new Error(`publicKey: the key ${taken.id} was registered on the account by someone else since the preview; import it to manage it here`);
    }
    return { live: await api.sshKeys.add(line) };
  },

  facts: (key: RegisteredKey): SshKeyFacts => ({ fingerprint: key.id, keyType: key.type, registeredLine: key.line }),
  imported: (key) => ({ publicKey: keyWithoutMark(key.line) }),
  diff,
  async update(context, id, _olds, news) {
    const keys = context.api.sshKeys;
    const now = await keys.get(id);
    // The mark stays what the registered line carries.
    const mark = markOfKey(now.line);
    const key = await keys.rewrite(id, mark ? keyWithMark(news.publicKey, mark) : news.publicKey.trim());
    context.report(`updated the comment of ${id}`);
    return { live: key };
  },
  example: EXAMPLE,
  exampleChanges: CHANGES,
} satisfies ResourceDefinition<SshKeyInputs, RegisteredKey, SshKeyFacts>;
