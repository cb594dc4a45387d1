"""A GPU pod placed from the catalog next to its network volume, a CPU pod, and a sandbox."""
import pulumi
import pulumi_compute as compute

config = pulumi.Config()
# The network volume of the training data, and its data center: a pod mounting a network volume
# must run where the volume lives (vol_dev_ro is the emulator's volume in EU-RO-1).
volume_id = config.get("volumeId") or "vol_dev_ro"
data_center_id = config.get("dataCenterId") or "EU-RO-1"
min_gpu_memory_gb = config.get_int("minGpuMemoryGb") or 80


def cheapest_in_stock(catalog: compute.GetGpuTypesResult) -> str:
    """The cheapest secure-cloud GPU type with enough memory that the data center has in stock."""
    in_stock = [
        gpu
        for gpu in catalog.gpu_types
        if gpu.secure
        and gpu.memory >= min_gpu_memory_gb
        and any(dc.id == data_center_id and dc.availability not in (None, "NONE") for dc in gpu.data_centers or [])
    ]
    if not in_stock:
        raise ValueError(f"no secure GPU type with {min_gpu_memory_gb} GB or more is in stock in {data_center_id}")
    return min(in_stock, key=lambda gpu: gpu.price.secure).id


gpu_type_id = cheapest_in_stock(compute.get_gpu_types())

trainer = compute.Pod(
    "trainer",
    image="pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime",
    gpu=compute.PodGpuArgs(id=gpu_type_id),
    data_center_ids=[data_center_id],
    mounts=compute.PodMountsArgs(network=[compute.PodMountsNetworkArgs(volume_id=volume_id, path="/checkpoints")]),
    args="python train.py --checkpoints /checkpoints",
    ports=["22/tcp"],
    start_ssh=True,
)

etl = compute.Pod(
    "etl",
    image="python:3.12-slim",
    cpu=compute.PodCpuArgs(id="cpu3c", vcpu_count=2),
    args="python -m etl",
    env={"LOG_LEVEL": "info"},
)

notebook = compute.Sandbox(
    "notebook",
    image="python:3.12-slim",
    compute=compute.SandboxComputeArgs(vcpu_count=2, memory_in_gb=4, container_disk_in_gb=10),
    idle_timeout_seconds=900,
    labels={"team": "research"},
)

pulumi.export("gpuTypeId", gpu_type_id)
pulumi.export("trainerId", trainer.pod_id)
pulumi.export("trainerStatus", trainer.status)
pulumi.export("ssh", trainer.ssh_direct_command)
pulumi.export("etlId", etl.pod_id)
pulumi.export("costPerHour", pulumi.Output.all(trainer.cost_per_hour, etl.cost_per_hour).apply(lambda costs: sum(c or 0 for c in costs)))
pulumi.export("sandboxId", notebook.sandbox_id)
