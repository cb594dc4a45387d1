"""The Python program of test/e2e/python.test.ts: what changes between runs comes from stack
config, with the same keys and outputs as the YAML program (test/e2e/native-stack.ts)."""
import pulumi
import pulumi_compute as compute

config = pulumi.Config()
volume_id = config.get("volumeId") or "vol_dev_tx"
mount_path = config.get("mountPath") or "/data"
start_ssh = config.get_bool("startSsh") or False
idle_timeout_seconds = config.get_int("idleTimeoutSeconds") or 600
api_token = config.require_secret("apiToken")

# A catalog lookup: the GPU type of the pod is the cheapest secure one the volume's data center
# has in stock.
catalog = compute.get_gpu_types()
in_stock = [
    gpu
    for gpu in catalog.gpu_types
    if gpu.secure and any(dc.id == "US-TX-3" and dc.availability not in (None, "NONE") for dc in gpu.data_centers or [])
]
gpu_type_id = min(in_stock, key=lambda gpu: gpu.price.secure).id

worker = compute.Pod(
    "worker",
    image="pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime",
    gpu=compute.PodGpuArgs(id=gpu_type_id),
    data_center_ids=["US-TX-3"],
    mounts=compute.PodMountsArgs(network=[compute.PodMountsNetworkArgs(volume_id=volume_id, path=mount_path)]),
    ports=["22/tcp", "8888/http"],
    start_ssh=start_ssh,
    start_jupyter=True,
    env={"STAGE": "e2e", "API_TOKEN": api_token},
)

etl = compute.Pod(
    "etl",
    image="python:3.12-slim",
    cpu=compute.PodCpuArgs(id="cpu3c", vcpu_count=2),
    args="python -m etl",
)

scratch = compute.Sandbox(
    "scratch",
    image="python:3.12-slim",
    compute=compute.SandboxComputeArgs(vcpu_count=1, memory_in_gb=2, container_disk_in_gb=5),
    idle_timeout_seconds=idle_timeout_seconds,
    labels={"suite": "python"},
)

pulumi.export("podId", worker.pod_id)
pulumi.export("podStatus", worker.status)
pulumi.export("gpuTypeId", worker.gpu_type_id)
pulumi.export("jupyterPassword", worker.jupyter_password)
pulumi.export("etlPodId", etl.pod_id)
pulumi.export("etlStatus", etl.status)
pulumi.export("sandboxId", scratch.sandbox_id)
pulumi.export("sandboxState", scratch.state)
pulumi.export("appliedIdleTimeoutSeconds", scratch.applied_idle_timeout_seconds)
