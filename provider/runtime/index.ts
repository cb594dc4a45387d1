/**
 * What the serialized providers call, loaded by package name (`pulumi-compute/provider-runtime`)
 * inside the dynamic-provider process. Not a public API.
 */
import * as pod from "./pod-handlers";
import * as sandbox from "./sandbox-handlers";
export { configure } from "./settings";
export { pod, sandbox };
