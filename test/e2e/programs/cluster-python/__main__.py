"""A Ray cluster through the generated SDK: nested input types, the `type` enum and list outputs.

Its name and node count come from stack config, so the test can rename it (in place) and resize
it (a replacement) between runs.
"""
import pulumi
import pulumi_compute as compute

config = pulumi.Config()

cluster = compute.Cluster(
    "ray",
    name=config.get("clusterName") or "ray-py",
    type=compute.ClusterType.RAY,
    compute=compute.ClusterComputeArgs(
        gpu_type_id="NVIDIA GeForce RTX 4090",
        gpu_count_per_pod=1,
        pod_count=config.get_int("podCount") or 2,
    ),
    image="rayproject/ray:2.40.0-gpu",
    ports=["22/tcp"],
)

pulumi.export("clusterId", cluster.cluster_id)
pulumi.export("name", cluster.name)
pulumi.export("status", cluster.status)
pulumi.export("headSsh", cluster.primary.apply(lambda primary: primary.ssh_command if primary else None))
pulumi.export("nodes", cluster.nodes.apply(lambda nodes: [{"rank": n.rank, "role": n.role, "ip": n.ip} for n in nodes]))
