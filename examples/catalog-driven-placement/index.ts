// Placement candidates built from the catalog at program time: every data center in one
// region where an H100 is in stock, best availability first.
import * as pulumi from "@pulumi/pulumi";
import * as compute from "pulumi-compute";

const GPU = "NVIDIA H100 80GB HBM3";
const rank: Record<string, number> = { HIGH: 3, MEDIUM: 2, LOW: 1, NONE: 0 };

const candidates = compute.getDataCenters({ region: "EUROPE" }).then((dataCenters) =>
  dataCenters
    .map((dc) => ({ dataCenterId: dc.id, level: dc.gpuAvailability?.find((g) => g.id === GPU)?.availability ?? "NONE" }))
    .filter((c) => rank[c.level] > 0)
    .sort((a, b) => rank[b.level] - rank[a.level])
    .map((c) => ({ gpuTypeId: GPU, dataCenterId: c.dataCenterId })),
);

const pod = new compute.Pod("inference", {
  image: "vllm/vllm-openai:v0.6.3",
  gpu: { id: GPU },
  placement: pulumi.output(candidates),
  ports: ["8000/http"],
});

export const triedInOrder = pulumi.output(candidates);
export const chosen = pod.placementChosen;
