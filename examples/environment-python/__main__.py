"""The environment pods and endpoints are made from, declared beside them.

A private registry's credential, a template that pulls with it, a network volume and an SSH
key; then a GPU pod from the template with the volume mounted, and a serverless endpoint whose
workers mount it too.
"""
import pulumi
import pulumi_compute as compute

config = pulumi.Config()
# Everything lives in one data center: a pod or endpoint mounts a network volume only there.
data_center_id = config.get("dataCenterId") or "US-TX-3"

# Username and password are write-only: always secrets in the state, never read back. Any
# change makes a new credential (created before the old one is deleted).
registry = compute.RegistryCredential(
    "ghcr",
    username=config.get("registryUsername") or "ci-bot",
    password=config.get_secret("registryToken") or "example-token",
)

# Every input of a template changes in place; pods made from it keep what it gave them at
# create (a preview says so when it changes).
template = compute.Template(
    "trainer",
    image="ghcr.io/example/trainer:1.4.0",
    registry_id=registry.registry_id,
    args="python train.py --data /data",
    disk=40,
    ports=["22/tcp", "8888/http"],
    env={"WANDB_PROJECT": "environment"},
    start_jupyter=False,
)

# Growing `size` later is an update in place; a smaller size is refused at preview.
volume = compute.NetworkVolume("datasets", data_center_id=data_center_id, size=50)

# One key added beside the account's own (a destroy removes only this one). Set `publicKey`
# to your ~/.ssh/id_ed25519.pub to log in to the pod.
ssh_key = compute.SshKey(
    "me",
    public_key=config.get("publicKey")
    or "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOW/+xD9XWyTpSpOUhtrAGw+zstfl4QH2/gcGR7cKv6j env-py@example",
)

# A pod receives the keys registered when it is created: it depends on the key. It names the
# credential itself too: a template is applied once, so only the pod's own `registry` moves it
# to a new credential (the old one cannot be deleted while a pod still pulls with it).
trainer = compute.Pod(
    "trainer",
    template_id=template.template_id,
    registry=registry.registry_id,
    gpu=compute.PodGpuArgs(id="NVIDIA GeForce RTX 4090"),
    data_center_ids=[data_center_id],
    mounts=compute.PodMountsArgs(network=[compute.PodMountsNetworkArgs(volume_id=volume.volume_id, path="/data")]),
    opts=pulumi.ResourceOptions(depends_on=[ssh_key]),
)

# Queue workers on 24 GB Ada GPUs with the same image and volume. One worker always on: the
# preview prints its price, and the price at `workers.max` beside it.
inference = compute.ServerlessEndpoint(
    "inference",
    type="QUEUE",
    image="ghcr.io/example/trainer:1.4.0",
    registry_id=registry.registry_id,
    args="python serve.py",
    gpu=compute.ServerlessEndpointGpuArgs(pools=["ADA_24"]),
    scaling=compute.ServerlessEndpointScalingArgs(type="QUEUE_DELAY", queue_delay=4),
    workers=compute.ServerlessEndpointWorkersArgs(min=1, max=3),
    data_center_ids=[data_center_id],
    network_volume_ids=[volume.volume_id],
)

pulumi.export("registryId", registry.registry_id)
pulumi.export("templateId", template.template_id)
pulumi.export("volumeId", volume.volume_id)
pulumi.export("sshKeyFingerprint", ssh_key.fingerprint)
pulumi.export("podId", trainer.pod_id)
pulumi.export("ssh", trainer.ssh_proxy_command)
pulumi.export("endpointId", inference.endpoint_id)
pulumi.export("runUrl", inference.request_urls.apply(lambda urls: urls.get("run")))
