// A CPU pod with a network volume mounted. Network volumes live in one data center, so the
// pod is pinned there; the mount path can change later without replacing the pod.
import * as compute from "pulumi-compute";

const worker = new compute.Pod("etl-worker", {
  image: "python:3.12-slim",
  cpu: { id: "cpu3c", vcpuCount: 4 },
  dataCenterIds: ["US-TX-3"],
  mounts: { network: [{ volumeId: "vol_dev_tx", path: "/data" }] },
  args: "python -m etl --input /data/raw --output /data/clean",
  env: { LOG_LEVEL: "info" },
});

export const podId = worker.podId;
export const memoryGb = worker.memoryGb; // derived by the service from the flavor's RAM per vCPU
export const costPerHour = worker.costPerHour;
