/**
 * The Cluster's inputs, listed once (see provider/resources/pod/inputs.ts). A cluster's shape,
 * type and container configuration are fixed at create (the service's PATCH is a rename), so
 * every input but the name and the provider's own settings replaces it.
 */
import { stringList as strings } from "../../properties";
import { containerInput } from "../container";
import type { InputList } from "../definition";
import { maxCostInput, placementInput, placementStrategyInput, waitForCapacityInput } from "../placement";
import { readinessInput, readyTimeoutInput } from "../readiness";
import { lifetimeInput } from "../lifetime";
import type { LifetimeSupport } from "../../../contract/lifetime";

/** A cluster ends at its deadline: the service cannot stop one (its members refuse actions). */
export const CLUSTER_LIFETIME = { actions: ["TERMINATE"], actionsBecause: "a cluster cannot be stopped: its member pods refuse actions", idle: false } as const satisfies LifetimeSupport;

export const CLUSTER_INPUTS = {
  name: { type: "string", onChange: "update", doc: "Cluster name; default: the resource name plus a random suffix. The only setting that changes in place." },
  type: {
    type: "string",
    enum: ["APPLICATION", "TRAINING", "SLURM", "RAY"],
    required: true,
    onChange: "replace",
    doc: "`SLURM` (a managed Slurm controller and compute nodes), `RAY` (a Ray head and workers), `TRAINING` (generic distributed training) or `APPLICATION`.",
  },
  compute: {
    type: "object",
    properties: { gpuTypeId: { type: "string" }, gpuCountPerPod: { type: "integer" }, podCount: { type: "integer" } },
    required: true,
    // `gpuTypeId` does not replace while `placement` candidates choose it.
    onChange: "depends",
    doc: "The nodes: `podCount` identical pods (2–250) of `gpuCountPerPod` GPUs (at most the type's catalog `maxCount`) of `gpuTypeId`.",
  },
  image: containerInput("image", "replace", "Container image of every node; required unless `templateId` gives one."),
  templateId: {
    type: "string",
    onChange: "replace",
    sent: "provider",
    doc: "A pod template whose container configuration (image, args, disk, env, ports, persistent mount, SSH/Jupyter) the nodes start from; the other inputs win over it. Read at create; no link is kept.",
  },
  args: containerInput("args", "replace", "The command of every node as one raw string."),
  disk: containerInput("disk", "replace", "Container disk of each node in GB (ephemeral)."),
  env: containerInput("env", "replace", "Environment variables of every node."),
  ports: containerInput("ports", "replace", "Exposed ports of every node, each `port/protocol` (`22/tcp` for direct SSH to the head)."),
  mounts: {
    type: "object",
    properties: {
      persistent: { type: "object", optional: true, properties: { size: { type: "integer" }, path: { type: "string" } } },
      network: { type: "array", optional: true, items: { type: "object", properties: { volumeId: { type: "string" }, path: { type: "string" } } } },
    },
    onChange: "replace",
    doc: "Volumes of every node: `persistent` (host-local) or one `network` volume in the cluster's data center.",
  },
  startSsh: { type: "boolean", onChange: "replace", doc: "Inject the account's SSH keys as `PUBLIC_KEY` on every node." },
  startJupyter: { type: "boolean", onChange: "replace", doc: "Start Jupyter on every node." },
  dataCenterIds: { ...strings, onChange: "replace", doc: "Preferred data centers, in order; the whole cluster lands in one." },
  placement: placementInput("cluster", "every node"),
  placementStrategy: placementStrategyInput,
  maxCostPerHour: maxCostInput("the whole cluster (every node)"),
  waitForCapacity: waitForCapacityInput,
  readiness: readinessInput("a cluster", "on every node, its `tcp` port accepts a connection, its direct SSH endpoint answers with a banner (`ssh: true`), an `http` GET answers with the expected status, and its log shows a line matching `logLine`"),
  lifetime: lifetimeInput(CLUSTER_LIFETIME, "the cluster"),
  readyTimeoutSeconds: readyTimeoutInput(1800, "How long create (or an update that takes up an unfinished wait) may wait for every node to run and pass the readiness probes"),
} as const satisfies InputList;
