// The team's stack, as a GitOps repository keeps it: a web pod, a scratch sandbox and
// `trainers` H100 pods. Changes arrive as pull requests to this program or to the stack's
// configuration (Pulumi.<stack>.yaml): `run-local.sh` plays one that raises `trainers`.
import * as pulumi from "@pulumi/pulumi";
import * as compute from "pulumi-compute";

const trainers = new pulumi.Config().getNumber("trainers") ?? 0;

const web = new compute.Pod("web", {
  image: "nginx:1.27",
  gpu: { id: "NVIDIA RTX A5000" },
  ports: ["80/http"],
});

const pods = [web];
for (let i = 0; i < trainers; i++) {
  pods.push(
    new compute.Pod(`trainer-${i}`, {
      image: "pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime",
      gpu: { id: "NVIDIA H100 80GB HBM3" },
      cmd: ["python", "train.py"],
    }),
  );
}

const scratch = new compute.Sandbox("scratch", {
  image: "python:3.12-slim",
  compute: { vcpuCount: 1, memoryInGb: 2, containerDiskInGb: 5 },
  idleTimeoutSeconds: 3600,
  maxLifetimeSeconds: 86400,
});

export const podCosts = pulumi.all(pods.map((pod) => pulumi.all([pod.name, pod.costPerHour]))).apply((rows) => Object.fromEntries(rows));
export const sandboxId = scratch.sandboxId;
