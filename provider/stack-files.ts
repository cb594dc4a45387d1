/**
 * What identifies a stack outside the program's process: its secrets salt in
 * `Pulumi.<stack>.yaml` and the backend its state lives in. Read from files and the
 * environment only (no `@pulumi/pulumi`), so the resource classes (provider/stack-identity.ts)
 * and the native plugin (provider/native/), which has no program runtime, derive the same
 * owner-mark identity from them.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";

/**
 * Something random per stack that everyone who runs the stack shares: the secrets salt (or
 * encrypted data key) that `pulumi stack init` wrote into `Pulumi.<stack>.yaml` in the project
 * directory `root`. Empty where there is none (Pulumi Cloud's own secrets: there
 * organization/project/stack is unique).
 */
export function stackSalt(root: string, stack: string): string {
  try {
    const settings = parseYaml(readFileSync(path.join(root, `Pulumi.${stack.split("/").pop()}.yaml`), "utf8")) as Record<string, unknown> | null;
    const salt = settings?.encryptionsalt ?? settings?.encryptedkey;
    return typeof salt === "string" ? salt : "";
  } catch {
    return "";
  }
}

/**
 * The backend the stack's state lives in, as the CLI chose it (`PULUMI_BACKEND_URL`, else the
 * login recorded in `~/.pulumi/credentials.json`), with a local path made absolute: two
 * developers' `pulumi login --local` stacks of the same name are different stacks.
 */
export function stateBackend(): string {
  let url = process.env.PULUMI_BACKEND_URL ?? "";
  if (!url) {
    try {
      const home = process.env.PULUMI_HOME || path.join(homedir(), ".pulumi");
      url = String((JSON.parse(readFileSync(path.join(home, "credentials.json"), "utf8")) as { current?: string }).current ?? "");
    } catch {
      url = "";
    }
  }
  const local = /^file:\/\/(.*)$/.exec(url);
  if (!local) return url;
  const where = local[1]!.startsWith("~") ? path.join(homedir(), local[1]!.slice(1)) : local[1]!;
  return `file://${path.resolve(where)}`;
}
