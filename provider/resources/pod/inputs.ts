/**
 * The Pod's inputs, listed once: the program's types (`PodArgs`), the package schema, the
 * default diff, the create request and the provider-only checks all follow from this list.
 * `onChange` says what a change does (`depends`: decided by `diffPod` in model.ts, with the
 * table in docs/provider.md); `sent` says where a value goes (definition.ts).
 */
import { stringList as strings } from "../../properties";
import { containerInput } from "../container";
import type { InputList } from "../definition";
import { maxCostInput, placementInput, placementStrategyInput, waitForCapacityInput } from "../placement";
import { readinessInput, readyTimeoutInput } from "../readiness";
import { recoveryInput } from "../recovery";
import { idleInput, lifetimeInput } from "../lifetime";
import type { LifetimeSupport } from "../../../contract/lifetime";

/** A pod stops (its disk kept, its GPUs released) or terminates, at a deadline or when idle. */
export const POD_LIFETIME = { actions: ["STOP", "TERMINATE"], actionsBecause: "STOP keeps the disk and stops the bill for GPUs", idle: true } as const satisfies LifetimeSupport;

export const POD_INPUTS = {
  name: { type: "string", onChange: "update", doc: "Pod name; default: the resource name plus a random suffix, generated once and kept for the pod's life." },
  image: containerInput("image", "update", "Container image; required unless `templateId` is set."),
  templateId: containerInput("templateId", "update", "Template to start from (the caller's own or public). Applied once; no link is kept."),
  args: containerInput("args", "update", "The command as one raw string (shell form, or the JSON exec form)."),
  cmd: containerInput("cmd", "update", "Exec-form CMD; compares equal to the same command written as `args`."),
  entrypoint: containerInput("entrypoint", "update", "Exec-form ENTRYPOINT."),
  disk: containerInput("disk", "update", "Container disk in GB (ephemeral)."),
  env: containerInput("env", "update", "Environment variables."),
  ports: containerInput("ports", "update", "Exposed ports, each `port/protocol` (`8888/http`, `22/tcp`)."),
  registry: containerInput("registry", "update", "Registry credential id for private images."),
  gpu: {
    type: "object",
    properties: {
      id: { type: "string" },
      count: { type: "integer", optional: true },
      allowedCudaVersions: { ...strings, optional: true },
      minCudaVersion: { type: "string", optional: true },
      minRamPerGpu: { type: "integer", optional: true },
      minVcpuCountPerGpu: { type: "integer", optional: true },
    },
    // `gpu.id` does not replace while `placement` candidates choose it.
    onChange: "depends",
    doc: "A GPU pod: GPU type id (catalog `gpus[].id`), count, CUDA and per-GPU filters. Exactly one of `gpu` or `cpu`.",
  },
  cpu: {
    type: "object",
    properties: { id: { type: "string" }, vcpuCount: { type: "integer" } },
    onChange: "replace",
    doc: "A CPU pod: CPU flavor id (catalog `cpus[].id`) and vCPUs (at least 2, a power of two, within the flavor's range).",
  },
  cloud: { type: "string", enum: ["SECURE", "COMMUNITY"], onChange: "replace", doc: "`SECURE` (default) or `COMMUNITY`." },
  dataCenterIds: { ...strings, onChange: "replace", doc: "Preferred data centers, in order." },
  globalNetworking: { type: "boolean", onChange: "update", unset: false, doc: "Join the global network (needs an NVIDIA GPU and a data center with global networking); a change restarts the pod." },
  mounts: {
    type: "object",
    properties: {
      persistent: { type: "object", optional: true, properties: { size: { type: "integer" }, path: { type: "string" } } },
      network: { type: "array", optional: true, items: { type: "object", properties: { volumeId: { type: "string" }, path: { type: "string" } } } },
      global: {
        type: "array",
        optional: true,
        items: { type: "object", properties: { volumeId: { type: "string" }, path: { type: "string", optional: true } } },
      },
    },
    // A mount path updates in place; the kind, a volume id or the persistent size replaces.
    onChange: "depends",
    doc: "Volumes: `persistent` (host-local, GPU pods only) or `network` / `global` volumes, at most one of each.",
  },
  startSsh: { type: "boolean", onChange: "replace", doc: "Inject the account's SSH keys as `PUBLIC_KEY`. Fixed at create." },
  startJupyter: { type: "boolean", onChange: "replace", doc: "Start Jupyter with a generated password (output `jupyterPassword`, secret). Fixed at create." },
  locked: { type: "boolean", onChange: "update", unset: false, sent: "later", doc: "Prevent stop and restart." },
  desiredState: { type: "string", enum: ["RUNNING", "STOPPED"], onChange: "update", unset: "RUNNING", sent: "provider", doc: "`RUNNING` (default) or `STOPPED`: the provider starts or stops the pod to match." },
  placement: placementInput("pod", "the pod"),
  placementStrategy: placementStrategyInput,
  maxCostPerHour: maxCostInput("the pod"),
  waitForCapacity: waitForCapacityInput,
  recovery: recoveryInput,

  readiness: readinessInput("a pod meant to run", "its `tcp` port accepts a connection, its direct SSH endpoint answers with a banner (`ssh: true`), an `http` GET answers with the expected status, and its log shows a line matching `logLine`"),
  readyTimeoutSeconds: readyTimeoutInput(900, "How long create/update may wait for the desired state and the readiness probes"),
  lifetime: lifetimeInput(POD_LIFETIME, "the pod"),
  idle: idleInput,
  adoptPodId: { type: "string", onChange: "nothing", sent: "provider", doc: "Bring an existing pod under the stack instead of creating one (see docs/provider.md)." },
} as const satisfies InputList;

