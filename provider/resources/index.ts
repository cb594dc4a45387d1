/**
 * The registry: every resource this package serves, one line each. Every face derives from
 * this list: the TypeScript dynamic classes (provider/classes.ts), the runtime's handlers
 * (provider/runtime/index.ts), the native plugin's dispatch and package schema
 * (provider/native/), the policy pack's types, the cost estimates and the docs tables.
 * Adding a resource: one folder beside pod/ and sandbox/, one line here, and its emulator
 * family (CONTRIBUTING.md, "Adding a resource"; test/provider/new-kind.test.ts proves the first two).
 */
import { dynamicToken, nativeToken, type ResourceDefinition } from "./definition";
import { clusterResource } from "./cluster";
import { networkVolumeResource } from "./network-volume";
import { podResource } from "./pod";
import { registryCredentialResource } from "./registry-credential";
import { sandboxResource } from "./sandbox";
import { serverlessEndpointResource } from "./serverless-endpoint";
import { sshKeyResource } from "./ssh-key";
import { templateResource } from "./template";

export const RESOURCES: readonly ResourceDefinition[] = [
  podResource,
  sandboxResource,
  networkVolumeResource,
  templateResource,
  registryCredentialResource,
  sshKeyResource,
  serverlessEndpointResource,
  clusterResource,
];

/** The definition a type token names: native (`compute:index:Pod`) or dynamic (`pulumi-nodejs:dynamic/compute:Pod`). */
export function resourceByToken(token: string): ResourceDefinition | undefined {
  return RESOURCES.find((definition) => nativeToken(definition) === token || dynamicToken(definition) === token);
}

export function resourceByKind(kind: string): ResourceDefinition | undefined {
  return RESOURCES.find((definition) => definition.kind === kind);
}
