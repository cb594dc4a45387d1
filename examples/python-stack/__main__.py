"""A GPU pod placed from the catalog next to its network volume, a CPU pod, and a sandbox."""
import pulumi
import pulumi_compute as compute

config = pulumi.Config()
# The network volume of the training data, and its data center: a pod mounting a network volume
# must run where the volume lives (vol_dev_tx is the emulator's volume in US-TX-3).
volume_id = config.get("volumeId") or "vol_dev_tx"
data_center_id = config.get("dataCenterId") or "US-TX-3"
mount_path = config.get("mountPath") or "/checkpoints"
min_gpu_memory_gb = config.get_int("minGpuMemoryGb") or 80
# Optional: SSH into the trainer (a change replaces the pod), a token for its environment (kept
# secret in the state), the sandbox's idle timeout (a change updates it in place).
start_ssh = config.get_bool("startSsh") or False
api_token = config.get_secret("apiToken")
idle_timeout_seconds = config.get_int("idleTimeoutSeconds") or 600
# Optional: a window of billing to report (RFC 3339; the API key needs the billing scope).
billing_from = config.get("billingFrom")
billing_to = config.get("billingTo")


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


trainer = compute.Pod(
    "trainer",
    image="pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime",
    gpu=compute.PodGpuArgs(id=cheapest_in_stock(compute.get_gpu_types())),
    data_center_ids=[data_center_id],
    mounts=compute.PodMountsArgs(network=[compute.PodMountsNetworkArgs(volume_id=volume_id, path=mount_path)]),
    args=f"python train.py --checkpoints {mount_path}",
    ports=["22/tcp", "8888/http"],
    start_ssh=start_ssh,
    start_jupyter=True,
    env={"API_TOKEN": api_token} if api_token else None,
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
    idle_timeout_seconds=idle_timeout_seconds,
    labels={"team": "research"},
)

# What the account's clusters were billed in that window, as the service's billing records say (GETs only).
spend = compute.get_cluster_billing(start_time=billing_from, end_time=billing_to, bucket_size="hour") if billing_from and billing_to else None

outputs = {
    "gpuTypeId": trainer.gpu_type_id,
    "podId": trainer.pod_id,
    "podStatus": trainer.status,
    "jupyterPassword": trainer.jupyter_password,  # a secret: `pulumi stack output --show-secrets`
    "etlPodId": etl.pod_id,
    "etlStatus": etl.status,
    "sandboxId": notebook.sandbox_id,
    "sandboxState": notebook.state,
    "appliedIdleTimeoutSeconds": notebook.applied_idle_timeout_seconds,
    "costPerHour": pulumi.Output.all(trainer.cost_per_hour, etl.cost_per_hour, notebook.cost_per_hour).apply(sum),
}
if spend is not None:
    outputs["clusterSpend"] = [
        {"clusterId": r.cluster_id, "startTime": r.start_time, "endTime": r.end_time, "totalAmount": r.total_amount} for r in spend.records
    ]
for name, value in outputs.items():
    pulumi.export(name, value)
