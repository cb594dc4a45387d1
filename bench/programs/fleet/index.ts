// The benchmarks' fleet: `bench:pods` CPU pods and `bench:sandboxes` sandboxes, all independent
// (nothing orders them), so the engine may create them all at once up to its parallelism.
// Names are fixed (no random suffix), so every run declares exactly the same stack.
import * as pulumi from "@pulumi/pulumi";
import { Pod, Sandbox } from "pulumi-compute";

const config = new pulumi.Config("bench");
const pods = config.getNumber("pods") ?? 0;
const sandboxes = config.getNumber("sandboxes") ?? 0;

for (let i = 0; i < pods; i++) {
  new Pod(`pod-${i}`, { name: `bench-pod-${i}`, image: "alpine:3.20", cpu: { id: "cpu3c", vcpuCount: 2 } });
}
for (let i = 0; i < sandboxes; i++) {
  new Sandbox(`sandbox-${i}`, {
    name: `bench-sandbox-${i}`,
    image: "python:3.12",
    compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 },
  });
}

export const declared = { pods, sandboxes };
