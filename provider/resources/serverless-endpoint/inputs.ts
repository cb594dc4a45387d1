/**
 * The ServerlessEndpoint's inputs, listed once (see provider/resources/pod/inputs.ts). What the
 * service's PATCH takes changes in place; `type`, the Hub listing and the compute family (`gpu`
 * or `cpu`) are fixed at create.
 */
import { stringList as strings } from "../../properties";
import { containerInput } from "../container";
import type { InputList } from "../definition";
import { readinessInput, readyTimeoutInput } from "../readiness";
import { lifetimeInput } from "../lifetime";
import type { LifetimeSupport } from "../../../contract/lifetime";
import { maxCostInput } from "../placement";

/** An endpoint stops by scaling to zero workers: it, its URL and its settings stay. */
export const ENDPOINT_LIFETIME = { actions: ["STOP"], actionsBecause: "an endpoint stops by scaling to zero workers, its URL kept", idle: false } as const satisfies LifetimeSupport;

export const SERVERLESS_ENDPOINT_INPUTS = {
  name: { type: "string", onChange: "update", doc: "Endpoint name; default: the resource name plus a suffix." },
  type: { type: "string", enum: ["QUEUE", "LOAD_BALANCER"], onChange: "replace", doc: "Request routing: `QUEUE` (jobs) or `LOAD_BALANCER` (HTTP to workers). Required unless `hubRepo` is set (then `QUEUE`)." },
  hubRepo: {
    type: "string",
    onChange: "replace",
    sent: "later",
    doc: "A Hub listing (`hub_…` id or `owner/name`) whose release gives the image, container disk, env and GPU types, as `compute serverless create --hub-id` does; inputs set here win over the release's.",
  },
  templateId: containerInput("templateId", "update", "A serverless template whose container settings the endpoint starts from (applied once; a change applies the new one)."),
  image: containerInput("image", "update", "Container image; required unless `templateId` or `hubRepo` is set."),
  args: containerInput("args", "update", "The command as one raw string."),
  disk: containerInput("disk", "update", "Container disk of each worker in GB."),
  env: containerInput("env", "update", "Environment variables of the workers."),
  ports: containerInput("ports", "update", "Exposed ports, each `port/protocol`."),
  registryId: containerInput("registryId", "update", "Registry credential id (a `RegistryCredential`'s `registryId`) for a private image."),
  gpu: {
    type: "object",
    properties: {
      pools: strings,
      excludedTypes: { ...strings, optional: true },
      count: { type: "integer", optional: true },
      allowedCudaVersions: { ...strings, optional: true },
      minCudaVersion: { type: "string", optional: true },
    },
    // Updates in place; switching between gpu and cpu replaces.
    onChange: "depends",
    doc: "GPU workers: serverless pools (catalog `gpus[].pool`), GPU types excluded from them, GPUs per worker, CUDA constraints. Exactly one of `gpu` or `cpu` (or neither with `hubRepo`).",
  },
  cpu: {
    type: "array",
    items: { type: "object", properties: { id: { type: "string" }, vcpuCount: { type: "integer" } } },
    // Updates in place; switching between gpu and cpu replaces.
    onChange: "depends",
    doc: "CPU workers: the flavor choices, each a CPU flavor id and a vCPU count (a power of two, at least 2).",
  },
  scaling: {
    type: "object",
    properties: { type: { type: "string", enum: ["QUEUE_DELAY", "REQUEST_COUNT"] }, queueDelay: { type: "number", optional: true }, requestCount: { type: "integer", optional: true } },
    onChange: "update",
    doc: "Autoscaling: `QUEUE_DELAY` with `queueDelay` seconds, or `REQUEST_COUNT` with `requestCount` (the only one for `LOAD_BALANCER`). Required unless `hubRepo` is set.",
  },
  workers: {
    type: "object",
    properties: { min: { type: "integer", optional: true }, max: { type: "integer", optional: true }, idleTimeout: { type: "integer", optional: true } },
    onChange: "update",
    doc: "Workers: `min` (default 0; each one bills all the time), `max` (default 3) and `idleTimeout` seconds (1–3600).",
  },
  flashboot: { type: "string", enum: ["OFF", "FLASHBOOT", "PRIORITY_FLASHBOOT"], onChange: "update", doc: "Faster cold starts: `OFF` (default), `FLASHBOOT` or `PRIORITY_FLASHBOOT`." },
  networkVolumeIds: { ...strings, onChange: "update", doc: "Network volumes the workers mount (`NetworkVolume` `volumeId`s)." },
  dataCenterIds: { ...strings, onChange: "update", doc: "Preferred data centers; empty lets the scheduler choose." },
  executionTimeoutMs: { type: "integer", onChange: "update", doc: "Per-request execution timeout in milliseconds (default 300000)." },
  readiness: readinessInput("an endpoint", "`minReadyWorkers` workers are RUNNING or IDLE on its current configuration (at most `workers.min`)"),
  maxCostPerHour: maxCostInput("one worker"),
  lifetime: lifetimeInput(ENDPOINT_LIFETIME, "the endpoint's workers"),
  readyTimeoutSeconds: readyTimeoutInput(600, "How long create and update may wait for the readiness probes"),
} as const satisfies InputList;
