/**
 * Which resources of a stack are pods and sandboxes of this package, whichever face declared
 * them: the native plugin's types, the dynamic resources' type tokens, and a dynamic resource
 * registered under the generic `pulumi-nodejs:dynamic:Resource` token (an older
 * `@pulumi/pulumi` ignores the module and type a resource class passes), recognised by its
 * serialized provider, which forwards to this package's runtime with the kind it serves
 * (provider/forwarder.ts: `require("pulumi-compute/provider-runtime")[kind]`).
 */
import type { CostKind } from "../provider/runtime/cost-estimate";

const TYPES: Readonly<Record<string, CostKind>> = {
  "compute:index:Pod": "pod",
  "compute:index:Sandbox": "sandbox",
  "pulumi-nodejs:dynamic/compute:Pod": "pod",
  "pulumi-nodejs:dynamic/compute:Sandbox": "sandbox",
};

const RUNTIME_MARKER = "pulumi-compute/provider-runtime";
const KIND_CAPTURE = /\bkind:\s*"(pod|sandbox)"/;

/** `pod`, `sandbox`, or undefined for a resource this package does not serve. */
export function costKindOf(type: string, props: Record<string, unknown>): CostKind | undefined {
  const kind = TYPES[type];
  if (kind) return kind;
  if (!type.startsWith("pulumi-nodejs:dynamic")) return undefined;
  const provider = props.__provider;
  if (typeof provider !== "string" || !provider.includes(RUNTIME_MARKER)) return undefined;
  return KIND_CAPTURE.exec(provider)?.[1] as CostKind | undefined;
}
