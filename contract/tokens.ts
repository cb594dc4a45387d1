/**
 * The type tokens of this package, spelled once: the native plugin's package (`compute`) and
 * its `compute:index:<Name>` tokens, and the dynamic resources' `pulumi-nodejs:dynamic/compute:<Name>`
 * (the token `pulumi.dynamic.Resource` gives a resource of module `compute` and type `<Name>`).
 */
export const PACKAGE_NAME = "compute";

/** The module of this package's dynamic resources. */
const DYNAMIC_MODULE = "compute";

/** `compute:index:<name>`: a native resource, type or function. */
export function nativeToken(name: string): string {
  return `${PACKAGE_NAME}:index:${name}`;
}

/** The token Pulumi gives the dynamic resource `<name>` of this package's module. */
export function dynamicToken(name: string): string {
  return `pulumi-nodejs:dynamic/${DYNAMIC_MODULE}:${name}`;
}

/** The resource name (`Pod`) a type token of this package names, native or dynamic; undefined for another package's. */
export function kindOfToken(type: string): string | undefined {
  for (const prefix of [nativeToken(""), dynamicToken("")]) if (type.startsWith(prefix) && type.length > prefix.length) return type.slice(prefix.length);
  return undefined;
}
