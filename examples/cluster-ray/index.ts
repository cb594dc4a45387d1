// A Ray cluster of two GPU nodes on one private overlay network: the head (rank 0) and a
// worker, placed together from ordered candidates, reachable over SSH on the head, with the
// Ray dashboard exposed. What a job needs to join it is exported: the head's SSH command, every
// node's overlay address, and the Ray address.
import * as pulumi from "@pulumi/pulumi";
import * as compute from "pulumi-compute";

const config = new pulumi.Config();

// Nodes started with `startSsh` receive the account's SSH keys as they are when the cluster is
// created: the cluster depends on the key. Set `publicKey` to your ~/.ssh/id_ed25519.pub.
const sshKey = new compute.SshKey("me", {
  publicKey: config.get("publicKey") ?? "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMw6omeNYv38+KO0JKLIblG4gruxlsSKvO2wQ4Aqn9nS ray@example",
});

const ray = new compute.Cluster(
  "ray",
  {
    type: "RAY",
    // Two identical nodes of 2 GPUs each. Every input but `name` replaces the cluster, and a
    // replacement holds the GPUs of two clusters until the old one is deleted.
    compute: { gpuTypeId: "NVIDIA H100 80GB HBM3", gpuCountPerPod: 2, podCount: 2 },
    // Tried in order; the service places every node in one data center or none, so a candidate
    // without room for the whole cluster moves on to the next. The preview's estimate is the
    // dearest candidate: 2 nodes × 2 GPUs × its SECURE list price.
    placement: [
      { gpuTypeId: "NVIDIA H100 80GB HBM3", dataCenterId: "US-KS-2" }, // sold out in the emulator's fixture
      { gpuTypeId: "NVIDIA A100-SXM4-80GB", dataCenterId: "EU-RO-1" },
    ],
    image: "rayproject/ray-ml:2.40.0-py311-gpu",
    env: { RAY_DASHBOARD_HOST: "0.0.0.0" },
    // 22/tcp: direct SSH to the head (`primary.sshCommand`); 8265/http: the Ray dashboard.
    ports: ["22/tcp", "8265/http"],
    startSsh: true,
  },
  { dependsOn: [sshKey] },
);

// Rank 0 first: the Ray head. `ip` is each node's address on the cluster's overlay network.
export const clusterId = ray.clusterId;
export const placedOn = ray.placementChosen;
export const headSsh = ray.primary.apply((primary) => primary?.sshCommand ?? null);
export const nodeAddresses = ray.nodes.apply((nodes) => nodes.map((node) => ({ rank: node.rank, role: node.role, ip: node.ip })));
// What `ray.init(address=…)` or `ray start --address=…` on the overlay takes: the head's GCS port.
export const rayAddress = ray.nodes.apply((nodes) => (nodes[0]?.ip ? `${nodes[0].ip}:6379` : null));
export const overlayCidr = ray.network.apply((network) => network?.cidr ?? null);
export const costPerHour = ray.costPerHour;
