/** Account rules beyond the wire schema: the SSH key line format (422, every bad line listed). */
import { SSH_KEY_LINE } from "../../contract";

/** Gets the raw body, so the lines are checked even when the schema fails elsewhere. */
export function sshKeyViolations(raw: unknown): string[] {
  const keys = (raw as { keys?: unknown } | undefined)?.keys;
  if (!Array.isArray(keys)) return [];
  return keys.flatMap((k, i) =>
    typeof k === "string" && k.length > 0 && !SSH_KEY_LINE.test(k) ? [`keys[${i}]: must be an authorized_keys line "<type> <base64-key> [comment]"`] : [],
  );
}
