/**
 * The Sandbox's inputs, listed once (see provider/resources/pod/inputs.ts). Only the idle timeout
 * changes in place; the lifetime only grows in place; everything else replaces.
 */
import { stringList as strings, stringMap } from "../../properties";
import { containerInput } from "../container";
import type { InputList } from "../definition";
import { readinessInput, readyTimeoutInput } from "../readiness";

export const SANDBOX_INPUTS = {
  name: { type: "string", onChange: "replace", doc: "Sandbox name; default: the resource name plus a random suffix." },
  image: containerInput("image", "replace", "Container image; required unless `templateId` is set."),
  templateId: containerInput("templateId", "replace", "Template to start from."),
  compute: {
    type: "object",
    properties: { vcpuCount: { type: "integer" }, memoryInGb: { type: "number" }, containerDiskInGb: { type: "integer" } },
    required: true,
    onChange: "replace",
    doc: "vCPUs, memory (GB) and container disk (GB) of the sandbox.",
  },
  dataCenterIds: { ...strings, onChange: "replace", doc: "Preferred data centers, in order." },
  ports: containerInput("ports", "replace", "Exposed ports, each `port/protocol`."),
  env: containerInput("env", "replace", "Environment variables."),
  egressPolicy: {
    type: "object",
    properties: {
      mode: { type: "string", enum: ["ALLOW_ALL", "DENY_ALL", "ALLOW_LIST"], optional: true },
      allow: { ...strings, optional: true },
    },
    onChange: "replace",
    doc: "Outbound traffic: `mode` (default `ALLOW_ALL`) and, for `ALLOW_LIST` only, the allowed destinations.",
  },
  idleTimeoutSeconds: { type: "integer", onChange: "update", doc: "Idle timeout in seconds (default 600); the service clamps it (contract/sandboxes.ts)." },
  // Grows in place (extend); a decrease replaces.
  maxLifetimeSeconds: { type: "integer", onChange: "depends", doc: "Total lifetime in seconds (default 3600, at least `MIN_MAX_LIFETIME_SECONDS`, at most the account maximum). Grows in place; a decrease replaces." },
  labels: { ...stringMap, onChange: "replace", doc: "Labels (at most 63 of your own; the key `pulumi-compute/owner` is the provider's)." },
  readiness: readinessInput("a sandbox", "its log shows a line matching `logLine` (a sandbox publishes no port mappings to probe)"),
  readyTimeoutSeconds: readyTimeoutInput(600, "How long create may wait for RUNNING and the readiness probes"),
  adoptSandboxId: { type: "string", onChange: "update", sent: "provider", doc: "Bring an existing sandbox under the stack instead of creating one." },
} as const satisfies InputList;

