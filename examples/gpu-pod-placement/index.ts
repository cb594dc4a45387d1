// A GPU pod that survives a sold-out GPU type: placement candidates are tried in order
// until one has capacity. The pod only moves if its current placement leaves the list.
import * as compute from "pulumi-compute";

const trainer = new compute.Pod("trainer", {
  image: "pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime",
  gpu: { id: "NVIDIA H200", minCudaVersion: "12.4" },
  placement: [
    { gpuTypeId: "NVIDIA H200", dataCenterId: "EU-RO-1" }, // no stock in the emulator's fixture
    { gpuTypeId: "NVIDIA H100 80GB HBM3", dataCenterId: "EU-RO-1" },
    { gpuTypeId: "NVIDIA H100 80GB HBM3" }, // any data center
  ],
  cmd: ["python", "train.py"],
  ports: ["22/tcp"],
  startSsh: true,
  readyTimeoutSeconds: 600,
});

export const chosen = trainer.placementChosen;
export const attempts = trainer.placementAttempts;
export const ssh = trainer.sshDirectCommand;
