/** The Cluster's outputs, listed once (see provider/resources/pod/outputs.ts). */
import type { OutputList } from "../definition";
import { READINESS_OUTPUTS } from "../readiness";
import { placementOutputs } from "../placement";
import { LIFETIME_OUTPUTS } from "../lifetime";

export const CLUSTER_OUTPUTS = {
  clusterId: { type: "string", fixed: true, doc: "The service's cluster id (also the resource id)." },
  status: {
    type: "string",
    doc: "`RUNNING` once every node runs with its rank and overlay address, `PROVISIONING` before, `ERROR` when a node failed or ended (the next `up` replaces the cluster).",
  },
  dataCenterId: { type: "string", nullable: true, fixed: true, doc: "The data center every node runs in." },
  gpuTypeId: { type: "string", fixed: true, doc: "The GPU type of every node (the placement candidate chosen, if any)." },
  nodes: {
    type: "array",
    items: {
      type: "object",
      properties: {
        podId: { type: "string" },
        rank: { type: "integer", nullable: true },
        role: { type: "string", nullable: true },
        ip: { type: "string", nullable: true },
        status: { type: "string" },
      },
    },
    doc: "Every node in rank order (rank 0, the head or Slurm controller, first): its pod id, rank, role (`RAY_HEAD`, `SLURM_COMPUTE`, …; null for TRAINING and APPLICATION), overlay address and status.",
  },
  primary: {
    type: "object",
    nullable: true,
    properties: { podId: { type: "string" }, sshCommand: { type: "string", nullable: true } },
    doc: "The entry node (rank 0) and the command that reaches it over SSH (needs `22/tcp` in `ports`).",
  },
  network: { type: "object", nullable: true, properties: { cidr: { type: "string" } }, doc: "The cluster's private overlay network." },
  costPerHour: { type: "number", doc: "What every node together costs in USD per hour, when last read." },
  ...placementOutputs("cluster"),
  createdAt: { type: "string", fixed: true, doc: "When the cluster was created (ISO 8601)." },
  ...READINESS_OUTPUTS,
  ...LIFETIME_OUTPUTS,
} as const satisfies OutputList;
