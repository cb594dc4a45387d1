// Bringing an existing pod under a stack. `pulumi import` does not reach dynamic providers,
// so the Pod takes `adoptPodId`: create adopts that pod instead of making a new one.
// Here the pod to adopt is found by name at program time (in real use, paste its id).
import * as pulumi from "@pulumi/pulumi";
import * as compute from "pulumi-compute";

const config = new pulumi.Config();
const existingId = config.require("existingPodId");

const adopted = new compute.Pod("legacy", {
  adoptPodId: existingId,
  name: config.get("existingPodName") ?? "legacy",
  image: config.get("existingPodImage") ?? "nginx:1.27",
  cpu: { id: "cpu3c", vcpuCount: 2 },
});

export const podId = adopted.podId;
export const status = adopted.status;
