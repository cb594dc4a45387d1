/**
 * The type tokens of this package, spelled once: the native plugin's package (`compute`) and
 * its `compute:index:<Name>` tokens, and the module the dynamic resources register under
 * (Pulumi gives them `pulumi-nodejs:dynamic/compute:<Name>`).
 */
export const PACKAGE_NAME = "compute";

/** The module a dynamic resource class passes to `pulumi.dynamic.Resource`. */
export const DYNAMIC_MODULE = "compute";

/** `compute:index:<name>`: a native resource, type or function. */
export function nativeToken(name: string): string {
  return `${PACKAGE_NAME}:index:${name}`;
}

/** The token Pulumi gives the dynamic resource `<name>` of this package's module. */
export function dynamicToken(name: string): string {
  return `pulumi-nodejs:dynamic/${DYNAMIC_MODULE}:${name}`;
}
