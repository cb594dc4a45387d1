// The five environment resources and a pod that uses them by reference, through the package's
// dynamic classes. What changes between runs comes from stack config, with the same keys and
// outputs as the YAML and Python programs (test/e2e/environment-stack.ts drives all three).
import * as pulumi from "@pulumi/pulumi";
import { getNetworkVolume, NetworkVolume, Pod, RegistryCredential, ServerlessEndpoint, SshKey, Template } from "pulumi-compute";

const config = new pulumi.Config();
const integer = (key: string, fallback: number) => config.getNumber(key) ?? fallback;

// Placed by the value itself, not by the volume's `appliedDataCenterId`: in a TypeScript
// program only a resource's id output is known in the preview of its update (docs/provider.md).
const dataCenterId = config.get("volumeDataCenter") ?? "US-TX-3";

const volume = new NetworkVolume("volume", {
  name: config.get("volumeName") ?? "datasets",
  dataCenterId,
  size: integer("volumeSize", 20),
  type: (config.get("volumeType") ?? "STANDARD") as "STANDARD" | "HIGH_PERFORMANCE",
});

const registry = new RegistryCredential("registry", {
  name: "private-registry",
  username: config.get("registryUsername") ?? "robot",
  password: config.requireSecret("registryPassword"),
});

const template = new Template("template", {
  name: "worker-base",
  image: config.get("templateImage") ?? "python:3.12-slim",
  category: "CPU",
  ports: ["22/tcp", config.get("templatePort") ?? "8888/http"],
  env: { STAGE: config.get("templateStage") ?? "one" },
  registryId: registry.registryId,
  startJupyter: false,
});

const key = new SshKey("key", { publicKey: config.require("sshPublicKey") });

const endpoint = new ServerlessEndpoint("endpoint", {
  name: "inference",
  type: (config.get("endpointType") ?? "QUEUE") as "QUEUE" | "LOAD_BALANCER",
  image: "python:3.12-slim",
  registryId: registry.registryId,
  cpu: [{ id: "cpu3c", vcpuCount: integer("endpointVcpuCount", 2) }],
  scaling: { type: "REQUEST_COUNT", requestCount: 4 },
  workers: { min: integer("endpointWorkersMin", 1), max: integer("endpointWorkersMax", 3) },
  networkVolumeIds: [volume.volumeId],
  dataCenterIds: [dataCenterId],
  executionTimeoutMs: 600000,
  flashboot: "FLASHBOOT",
});

const worker = new Pod(
  "worker",
  {
    templateId: template.templateId,
    cpu: { id: "cpu3c", vcpuCount: 2 },
    dataCenterIds: [dataCenterId],
    mounts: { network: [{ volumeId: volume.volumeId, path: "/data" }] },
    registry: registry.registryId,
    startSsh: true,
  },
  // PUBLIC_KEY is the account's keys when the pod is created: the key must be registered first.
  { dependsOn: [key] },
);

// Objects made outside the stack, when the stack config names them (the interrupted suite runs
// this program without): the template is read by id into the stack as a read resource, which the
// stack never creates, changes or deletes; the volume is looked up by name, and nothing is added
// to the stack for it.
const templateToRead = config.get("outsideTemplateId");
const outside = templateToRead === undefined ? undefined : Template.get("outside-template", templateToRead);
const volumeToFind = config.get("outsideVolumeName");
const found = volumeToFind === undefined ? undefined : getNetworkVolume({ name: volumeToFind });

export const volumeId = volume.volumeId;
export const volumeServiceName = volume.serviceName;
export const volumeSize = volume.appliedSize;
export const volumeType = volume.appliedType;
export const volumeDataCenter = volume.appliedDataCenterId;
export const registryId = registry.registryId;
export const registryServiceName = registry.serviceName;
export const templateId = template.templateId;
export const templateServiceName = template.serviceName;
export const keyFingerprint = key.fingerprint;
export const keyLine = key.registeredLine;
export const endpointId = endpoint.endpointId;
export const endpointComputeType = endpoint.computeType;
export const endpointWorkersMin = endpoint.workersMin;
export const endpointWorkersMax = endpoint.workersMax;
export const podId = worker.podId;
export const podStatus = worker.status;
export const outsideTemplateId = outside?.templateId;
export const outsideTemplateServiceName = outside?.serviceName;
export const outsideTemplateArgs = outside?.appliedArgs;
export const foundVolumeId = found?.then((volume) => volume.id);
export const foundVolumeSize = found?.then((volume) => volume.size);
export const foundVolumeDataCenter = found?.then((volume) => volume.dataCenter);
