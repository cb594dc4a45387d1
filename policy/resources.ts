/**
 * Which resources of a stack have a price, whichever face declared them: the registry's native
 * and dynamic type tokens (provider/resources/), and a dynamic resource registered under the
 * generic `pulumi-nodejs:dynamic:Resource` token (an older `@pulumi/pulumi` ignores the module
 * and type a resource class passes), recognised by its serialized provider: it forwards to this
 * package's runtime by its resource's dynamic type token (provider/forwarder.ts), the one
 * string it captures, so a renamed resource is renamed here too.
 */
import { RESOURCES, resourceByToken } from "../provider/resources";
import { dynamicToken, type ResourceDefinition } from "../provider/resources/definition";

const RUNTIME_MARKER = "pulumi-compute/provider-runtime";

/** The definition of a resource of this package that has a price, or undefined. */
export function pricedResourceOf(type: string, props: Record<string, unknown>): ResourceDefinition | undefined {
  const definition = resourceByToken(type) ?? serializedWith(type, props.__provider);
  return definition?.price ? definition : undefined;
}

/** `pod`, `sandbox`, … or undefined for a resource this package does not price. */
export function costKindOf(type: string, props: Record<string, unknown>): string | undefined {
  return pricedResourceOf(type, props)?.kind;
}

function serializedWith(type: string, provider: unknown): ResourceDefinition | undefined {
  if (!type.startsWith("pulumi-nodejs:dynamic") || typeof provider !== "string" || !provider.includes(RUNTIME_MARKER)) return undefined;
  return RESOURCES.find((definition) => provider.includes(JSON.stringify(dynamicToken(definition))));
}
