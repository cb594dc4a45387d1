"""The five environment resources and a pod that uses them by reference, through the generated SDK.

What changes between runs comes from stack config, with the same keys and outputs as the YAML and
TypeScript programs (test/e2e/environment-stack.ts drives all three).
"""
import pulumi
import pulumi_compute as compute

config = pulumi.Config()

volume = compute.NetworkVolume(
    "volume",
    name=config.get("volumeName") or "datasets",
    data_center_id=config.get("volumeDataCenter") or "US-TX-3",
    size=config.get_int("volumeSize") or 20,
    type=config.get("volumeType") or "STANDARD",
)

registry = compute.RegistryCredential(
    "registry",
    name="private-registry",
    username=config.get("registryUsername") if config.get("registryUsername") is not None else "robot",
    password=config.require_secret("registryPassword"),
)

template = compute.Template(
    "template",
    name="worker-base",
    image=config.get("templateImage") or "python:3.12-slim",
    category="CPU",
    ports=["22/tcp", config.get("templatePort") or "8888/http"],
    env={"STAGE": config.get("templateStage") or "one"},
    registry_id=registry.registry_id,
    start_jupyter=False,
)

key = compute.SshKey("key", public_key=config.require("sshPublicKey"))

endpoint = compute.ServerlessEndpoint(
    "endpoint",
    name="inference",
    type=config.get("endpointType") or "QUEUE",
    image="python:3.12-slim",
    registry_id=registry.registry_id,
    cpu=[compute.ServerlessEndpointCpuArgs(id="cpu3c", vcpu_count=config.get_int("endpointVcpuCount") or 2)],
    scaling=compute.ServerlessEndpointScalingArgs(type="REQUEST_COUNT", request_count=4),
    workers=compute.ServerlessEndpointWorkersArgs(
        min=config.get_int("endpointWorkersMin") if config.get_int("endpointWorkersMin") is not None else 1,
        max=config.get_int("endpointWorkersMax") or 3,
    ),
    network_volume_ids=[volume.volume_id],
    data_center_ids=[volume.applied_data_center_id],
    execution_timeout_ms=600000,
    flashboot="FLASHBOOT",
)

worker = compute.Pod(
    "worker",
    template_id=template.template_id,
    cpu=compute.PodCpuArgs(id="cpu3c", vcpu_count=2),
    data_center_ids=[volume.applied_data_center_id],
    mounts=compute.PodMountsArgs(network=[compute.PodMountsNetworkArgs(volume_id=volume.volume_id, path="/data")]),
    registry=registry.registry_id,
    start_ssh=True,
    # PUBLIC_KEY is the account's keys when the pod is created: the key must be registered first.
    opts=pulumi.ResourceOptions(depends_on=[key]),
)

# Objects made outside the stack, when the stack config names them (as in the TypeScript program).
# The template is read by id into the stack as a read resource, which the stack never creates,
# changes or deletes; the volume is looked up by name, and nothing is added to the stack for it.
outside_template_id = config.get("outsideTemplateId")
outside_volume_name = config.get("outsideVolumeName")
outside = compute.Template.get("outside-template", outside_template_id) if outside_template_id else None
found = compute.get_network_volume(name=outside_volume_name) if outside_volume_name else None

outputs = {
    "volumeId": volume.volume_id,
    "volumeServiceName": volume.service_name,
    "volumeSize": volume.applied_size,
    "volumeType": volume.applied_type,
    "volumeDataCenter": volume.applied_data_center_id,
    "registryId": registry.registry_id,
    "registryServiceName": registry.service_name,
    "templateId": template.template_id,
    "templateServiceName": template.service_name,
    "keyFingerprint": key.fingerprint,
    "keyLine": key.registered_line,
    "endpointId": endpoint.endpoint_id,
    "endpointComputeType": endpoint.compute_type,
    "endpointWorkersMin": endpoint.workers_min,
    "endpointWorkersMax": endpoint.workers_max,
    "podId": worker.pod_id,
    "podStatus": worker.status,
}
if outside is not None:
    outputs.update(
        {
            "outsideTemplateId": outside.template_id,
            "outsideTemplateServiceName": outside.service_name,
            "outsideTemplateArgs": outside.applied_args,
        }
    )
if found is not None:
    outputs.update({"foundVolumeId": found.id, "foundVolumeSize": found.size, "foundVolumeDataCenter": found.data_center})
for name, value in outputs.items():
    pulumi.export(name, value)
