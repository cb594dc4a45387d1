/**
 * Program-side facts a resource hands its provider, which the provider process cannot learn by
 * itself: who owns the resource (the owner mark, see sdk/ownership.ts) and which inputs the
 * program gave as secrets (the dynamic-provider host hands the provider plain values, so
 * without this list it could not keep them out of its messages).
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { parse as parseYaml } from "yaml";
import { ownerMark } from "../sdk/ownership";

/**
 * Something random per stack that everyone who runs the stack shares: the secrets salt (or
 * encrypted data key) that `pulumi stack init` wrote into `Pulumi.<stack>.yaml`. Empty where
 * there is none (Pulumi Cloud's own secrets: there organization/project/stack is unique).
 */
function stackSalt(): string {
  const stack = pulumi.getStack();
  const root = pulumi.runtime.getRootDirectory() || process.cwd();
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
function backend(): string {
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

function organization(): string {
  try {
    return pulumi.getOrganization();
  } catch {
    return ""; // older language hosts do not pass it
  }
}

/** The owner mark of the resource `name` of type `type` (its URN, so parents count). */
export function ownerMarkOf(name: string, type: string, opts: pulumi.CustomResourceOptions): pulumi.Output<string> {
  const urn = pulumi.createUrn(name, type, opts.parent);
  return urn.apply((value) => ownerMark({ organization: organization(), project: pulumi.getProject(), stack: pulumi.getStack(), backend: backend(), urn: value, salt: stackSalt() }));
}

/** Names of the top-level inputs the program passed as secrets (or that hold a secret inside). */
export function secretInputNames(args: object): pulumi.Output<string[]> {
  const entries = Object.entries(args).filter(([, value]) => value !== undefined);
  const checks = entries.map(async ([key, value]) => ((await pulumi.isSecret(pulumi.output(value))) ? key : undefined));
  return pulumi.output(Promise.all(checks).then((keys) => keys.filter((key): key is string => key !== undefined).sort()));
}
