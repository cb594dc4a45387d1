/**
 * Program-side facts a resource hands its provider, which the provider process cannot learn by
 * itself: who owns the resource (the owner mark, see sdk/ownership.ts) and which inputs the
 * program gave as secrets (the dynamic-provider host hands the provider plain values, so
 * without this list it could not keep them out of its messages).
 */
import * as pulumi from "@pulumi/pulumi";
import { ownerMark } from "../sdk/ownership";
import { stackSalt, stateBackend } from "./stack-files";

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
  return urn.apply((value) => ownerMark({ organization: organization(), project: pulumi.getProject(), stack: pulumi.getStack(), backend: stateBackend(), urn: value, salt: stackSalt(pulumi.runtime.getRootDirectory() || process.cwd(), pulumi.getStack()) }));
}

/**
 * Names of the top-level inputs the program passed as secrets (or that hold a secret inside);
 * undefined, so not recorded, when there are none: the state holds inputs and outputs twice
 * each, and an empty list on every resource of a large stack is bytes every checkpoint rewrites
 * (the native plugin records none either). An absent list and an empty one mean the same.
 */
export function secretInputNames(args: object): pulumi.Output<string[] | undefined> {
  const entries = Object.entries(args).filter(([, value]) => value !== undefined);
  const checks = entries.map(async ([key, value]) => ((await pulumi.isSecret(pulumi.output(value))) ? key : undefined));
  return pulumi.output(
    Promise.all(checks).then((keys) => {
      const names = keys.filter((key): key is string => key !== undefined).sort();
      return names.length > 0 ? names : undefined;
    }),
  );
}
