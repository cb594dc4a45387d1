// The demo stack (`npm run demo`): the product's range in one program, against the emulator's
// default fixture.
import * as pulumi from "@pulumi/pulumi";
import * as compute from "pulumi-compute";

// A GPU pod placed from candidates, with the network volume in EU-RO-1 mounted at /data.
// The first candidate (H200 in EU-RO-1) has no stock, so placement moves on to the next one
// instead of failing the stack.
const trainer = new compute.Pod("trainer", {
  image: "pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime",
  gpu: { id: "NVIDIA H100 80GB HBM3", minCudaVersion: "12.4" },
  placement: [
    { gpuTypeId: "NVIDIA H200", dataCenterId: "EU-RO-1" },
    { gpuTypeId: "NVIDIA H100 80GB HBM3", dataCenterId: "EU-RO-1" },
    { gpuTypeId: "NVIDIA A100-SXM4-80GB", dataCenterId: "EU-RO-1" },
  ],
  cmd: ["python", "train.py", "--epochs", "3"],
  mounts: { network: [{ volumeId: "vol_dev_ro", path: "/data" }] },
  ports: ["22/tcp", "8888/http"],
  env: { WANDB_PROJECT: "demo" },
  startSsh: true,
  startJupyter: true,
});

// A CPU pod for the API in front of the model.
const api = new compute.Pod("api", {
  image: "ghcr.io/example/api:1.2.0",
  cpu: { id: "cpu3c", vcpuCount: 4 },
  ports: ["8080/http"],
  env: { LOG_LEVEL: "info" },
});

// A pod from a public template: image, ports, disk and env come from the template.
const notebook = new compute.Pod("notebook", {
  templateId: "tpl_pytorch",
  gpu: { id: "NVIDIA GeForce RTX 4090" },
  env: { JUPYTER_THEME: "dark" },
});

// A labelled pair of sandboxes; `compute sandbox list --label demo=compute` finds them.
const sandboxes = ["a", "b"].map(
  (suffix) =>
    new compute.Sandbox(`worker-${suffix}`, {
      image: "python:3.12-slim",
      compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 },
      idleTimeoutSeconds: 3600,
      maxLifetimeSeconds: 86400,
      labels: { demo: "compute", role: "worker" },
    }),
);

const describePod = (pod: compute.Pod) =>
  pulumi.output({
    name: pod.name,
    id: pod.podId,
    status: pod.status,
    placement: pulumi.interpolate`${pod.gpuTypeId.apply((g) => g ?? "")}${pod.cpuFlavorId.apply((c) => c ?? "")} in ${pod.dataCenterId}`,
    ssh: pod.sshProxyCommand,
    costPerHour: pod.costPerHour,
  });

export const pods = { trainer: describePod(trainer), api: describePod(api), notebook: describePod(notebook) };
export const trainerPlacementAttempts = trainer.placementAttempts;
export const trainerJupyterPassword = trainer.jupyterPassword; // a secret output
export const sandboxesByName = pulumi.output(
  sandboxes.map((s) =>
    pulumi.output({ name: s.name, id: s.sandboxId, state: s.state, dataCenterId: s.dataCenterId, costPerHour: s.costPerHour, expiresAt: s.expiresAt }),
  ),
);
