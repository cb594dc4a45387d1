// The team's stack, as a GitOps repository keeps it: a web pod, a scratch sandbox and
// `trainers` H100 pods, each stopped after `trainerHours` (8 by default) by the scheduled reaper
// (reap.sh): a training run forgotten on Friday does not bill all weekend. Changes arrive as pull requests to this program or to the stack's
// configuration (Pulumi.<stack>.yaml): `run-local.sh` plays one that raises `trainers`.
import * as pulumi from "@pulumi/pulumi";
import * as compute from "pulumi-compute";

const config = new pulumi.Config();
// A review stack (`pr-<n>`, made by `pull-request.sh --review <n>`) tries a pull request's change
// for real before the merge, small: one trainer at most, and a sandbox that ends by itself should
// the stack outlive its pull request.
const review = config.getBoolean("review") ?? false;
const trainers = Math.min(config.getNumber("trainers") ?? 0, review ? 1 : Infinity);
// A trainer stops (its disk, and the checkpoints on it, kept) this long after it starts; a review
// stack's sooner. Extending it is a rename, never a restart (docs/provider.md, "Lifetimes").
const trainerHours = review ? 2 : (config.getNumber("trainerHours") ?? 8);

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
      lifetime: { maxDurationSeconds: trainerHours * 3600, action: "STOP" },
    }),
  );
}

const scratch = new compute.Sandbox("scratch", {
  image: "python:3.12-slim",
  compute: { vcpuCount: 1, memoryInGb: 2, containerDiskInGb: 5 },
  idleTimeoutSeconds: 3600,
  maxLifetimeSeconds: review ? 4 * 3600 : 86400,
});

export const podCosts = pulumi.all(pods.map((pod) => pulumi.all([pod.name, pod.costPerHour]))).apply((rows) => Object.fromEntries(rows));
export const sandboxId = scratch.sandboxId;
