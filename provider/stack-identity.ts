/**
 * Program-side facts a resource hands its provider, which the provider process cannot learn by
 * itself: who owns the resource (the owner mark, see sdk/ownership.ts) and which inputs the
 * program gave as secrets (the dynamic-provider host hands the provider plain values, so
 * without this list it could not keep them out of its messages).
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { parse as parseYaml } from "yaml";
import { ownerMark } from "../sdk/ownership";

/**
 * Something random per stack that everyone who runs the stack shares: the secrets salt (or
 * encrypted data key) that `pulumi stack init` wrote into `Pulumi.<stack>.yaml`. Two stacks of
 * the same organization, project and name in two backends (two developers' local `dev` stacks
 * against one team account) then still get different owner marks. Empty where there is none
 * (Pulumi Cloud's own secrets: there organization/project/stack is already unique).
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
  return urn.apply((value) => ownerMark({ organization: organization(), project: pulumi.getProject(), stack: pulumi.getStack(), urn: value, salt: stackSalt() }));
}

/** Names of the top-level inputs the program passed as secrets (or that hold a secret inside). */
export function secretInputNames(args: object): pulumi.Output<string[]> {
  const entries = Object.entries(args).filter(([, value]) => value !== undefined);
  const checks = entries.map(async ([key, value]) => ((await pulumi.isSecret(pulumi.output(value))) ? key : undefined));
  return pulumi.output(Promise.all(checks).then((keys) => keys.filter((key): key is string => key !== undefined).sort()));
}
