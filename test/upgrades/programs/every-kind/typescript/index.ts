// Every resource kind of the builds of 2026-11-27: a network volume, a registry credential, a
// template that pulls with it, an SSH key, a serverless endpoint and a cluster; a GPU pod from
// the template on the stack's volume, a CPU pod, a stopped, a locked and a Jupyter pod; two
// sandboxes; and, since 0.3.0, a read resource (a `get` of the template by its id, which a state
// records without owning it). The YAML program beside it declares the same resources.
// `scratchIdleTimeout` is the small real change the upgrade suite makes after the upgrade (an
// in-place update).
import * as pulumi from "@pulumi/pulumi";
import * as compute from "pulumi-compute";

const config = new pulumi.Config();

const volume = new compute.NetworkVolume("volume", { name: "datasets", dataCenterId: "US-TX-3", size: 20 });

const registry = new compute.RegistryCredential("registry", {
  name: "private-registry",
  username: "robot",
  password: config.requireSecret("registryPassword"),
});

const template = new compute.Template("template", {
  name: "trainer-base",
  image: "pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime",
  ports: ["22/tcp", "8888/http"],
  env: { STAGE: "one" },
  registryId: registry.registryId,
});

// Read, not owned: what a `get` leaves in the state (0.3.0 and later).
const templateRead = compute.Template.get("template-read", template.templateId);

const key = new compute.SshKey("key", {
  publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMw6omeNYv38+KO0JKLIblG4gruxlsSKvO2wQ4Aqn9nS upgrade@example",
});

const endpoint = new compute.ServerlessEndpoint("endpoint", {
  name: "inference",
  type: "QUEUE",
  image: "python:3.12-slim",
  registryId: registry.registryId,
  cpu: [{ id: "cpu3c", vcpuCount: 2 }],
  scaling: { type: "REQUEST_COUNT", requestCount: 4 },
  workers: { min: 1, max: 3 },
  networkVolumeIds: [volume.volumeId],
  dataCenterIds: ["US-TX-3"],
});

const cluster = new compute.Cluster(
  "cluster",
  {
    type: "SLURM",
    compute: { gpuTypeId: "NVIDIA H100 80GB HBM3", gpuCountPerPod: 1, podCount: 2 },
    dataCenterIds: ["US-TX-3"],
    image: "ghcr.io/example/slurm-node:24.05",
    ports: ["22/tcp"],
    startSsh: true,
  },
  { dependsOn: [key] },
);

const trainer = new compute.Pod(
  "trainer",
  {
    templateId: template.templateId,
    gpu: { id: "NVIDIA A100-SXM4-80GB", count: 1 },
    placement: [
      { gpuTypeId: "NVIDIA A100-SXM4-80GB", dataCenterId: "US-TX-3" },
      { gpuTypeId: "NVIDIA L40S", dataCenterId: "US-TX-3" },
    ],
    mounts: { network: [{ volumeId: volume.volumeId, path: "/data" }] },
    registry: registry.registryId,
    env: { WANDB_API_KEY: config.requireSecret("wandbKey") },
    startSsh: true,
  },
  { dependsOn: [key] },
);

const cpu = new compute.Pod("cpu", {
  image: "python:3.12-slim",
  cpu: { id: "cpu3c", vcpuCount: 2 },
  dataCenterIds: ["US-TX-3"],
  ports: ["22/tcp"],
});

const parked = new compute.Pod("parked", {
  image: "python:3.12-slim",
  cpu: { id: "cpu3c", vcpuCount: 2 },
  desiredState: "STOPPED",
});

const locked = new compute.Pod("locked", {
  image: "pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime",
  gpu: { id: "NVIDIA GeForce RTX 4090", count: 1 },
  dataCenterIds: ["US-TX-3"],
  locked: true,
});

const notebook = new compute.Pod("notebook", {
  image: "jupyter/base-notebook:latest",
  gpu: { id: "NVIDIA RTX A5000", count: 1 },
  ports: ["8888/http"],
  startJupyter: true,
});

const scratch = new compute.Sandbox("scratch", {
  image: "python:3.12-slim",
  compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 },
  idleTimeoutSeconds: config.getNumber("scratchIdleTimeout") ?? 900,
  labels: { team: "research" },
});

const runner = new compute.Sandbox("runner", {
  image: "node:20-slim",
  compute: { vcpuCount: 2, memoryInGb: 2, containerDiskInGb: 5 },
  labels: { team: "research", role: "ci" },
});

export const volumeId = volume.volumeId;
export const templateId = template.templateId;
export const templateReadName = templateRead.serviceName;
export const keyFingerprint = key.fingerprint;
export const endpointId = endpoint.endpointId;
export const clusterId = cluster.clusterId;
export const trainerId = trainer.podId;
export const cpuId = cpu.podId;
export const parkedStatus = parked.status;
export const lockedId = locked.podId;
export const notebookPassword = notebook.jupyterPassword;
export const scratchExpires = scratch.expiresAt;
export const runnerId = runner.sandboxId;
