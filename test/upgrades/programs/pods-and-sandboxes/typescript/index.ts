// The stack a user of the builds up to 2026-11-23 (Pod and Sandbox only) would run: a GPU pod
// on the account's network volume, a CPU pod, a stopped, a locked and a Jupyter pod, and two
// sandboxes. Written against that build's API; run unchanged by every later one. The YAML
// program beside it declares the same resources. `scratchIdleTimeout` is the small real change
// the upgrade suite makes after the upgrade (an in-place update).
import * as pulumi from "@pulumi/pulumi";
import * as compute from "pulumi-compute";

const config = new pulumi.Config();

const trainer = new compute.Pod("trainer", {
  image: "pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime",
  gpu: { id: "NVIDIA H100 80GB HBM3", count: 1 },
  placement: [
    { gpuTypeId: "NVIDIA H100 80GB HBM3", dataCenterId: "US-TX-3" },
    { gpuTypeId: "NVIDIA A100-SXM4-80GB", dataCenterId: "US-TX-3" },
  ],
  mounts: { network: [{ volumeId: "vol_dev_tx", path: "/data" }] },
  ports: ["22/tcp", "8888/http"],
  env: { WANDB_API_KEY: config.requireSecret("wandbKey") },
  startSsh: true,
});

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

export const trainerId = trainer.podId;
export const cpuId = cpu.podId;
export const parkedStatus = parked.status;
export const lockedId = locked.podId;
export const notebookPassword = notebook.jupyterPassword;
export const scratchExpires = scratch.expiresAt;
export const runnerId = runner.sandboxId;
