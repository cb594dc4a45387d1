// The benchmarks' fleet: `bench:pods` CPU pods and `bench:sandboxes` sandboxes, all independent
// (nothing orders them), so the engine may create them all at once up to its parallelism.
// Names are fixed (no random suffix), so every run declares exactly the same stack.
// `bench:native` declares them by type token instead, so the engine serves them with the native
// plugin (`pulumi-resource-compute`, installed by set-up) rather than the dynamic provider: the
// same resources from the same language host, so scenario 8 compares the providers alone.
import * as pulumi from "@pulumi/pulumi";
import * as compute from "pulumi-compute";
import { Pod, Sandbox } from "pulumi-compute";

const config = new pulumi.Config("bench");
const pods = config.getNumber("pods") ?? 0;
const sandboxes = config.getNumber("sandboxes") ?? 0;
const native = config.getBoolean("native") ?? false;

function declare(kind: "Pod" | "Sandbox", name: string, args: Record<string, unknown>): void {
  if (native) new pulumi.CustomResource(`compute:index:${kind}`, name, args);
  else if (kind === "Pod") new Pod(name, args as unknown as compute.PodArgs);
  else new Sandbox(name, args as unknown as compute.SandboxArgs);
}

for (let i = 0; i < pods; i++) {
  declare("Pod", `pod-${i}`, { name: `bench-pod-${i}`, image: "alpine:3.20", cpu: { id: "cpu3c", vcpuCount: 2 } });
}
for (let i = 0; i < sandboxes; i++) {
  declare("Sandbox", `sandbox-${i}`, {
    name: `bench-sandbox-${i}`,
    image: "python:3.12",
    compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 },
  });
}

export const declared = { pods, sandboxes, native };
