// The demo stack (`npm run demo`): the product's range in one program. It makes everything it
// uses, so it runs the same on any account, and `npm run demo -- --destroy` leaves the account
// as it found it (the SSH keys the demo did not add included).
import * as pulumi from "@pulumi/pulumi";
import * as compute from "pulumi-compute";

// The environment first: what pods and endpoints are made from.

// A private registry's credential. Both values are write-only secrets: ciphertext in the state,
// never read back. The emulator pulls nothing, so a fixed demo token is enough here; a real
// stack takes it from its config (`config.requireSecret("registryToken")`).
const registry = new compute.RegistryCredential("ghcr", {
  username: "demo-bot",
  password: "demo-registry-token",
});

// A template for the research pods: a private image pulled with that credential, its ports,
// disk and environment. Pods made from it keep what it gave them at create.
const research = new compute.Template("research", {
  image: "ghcr.io/example/research:2.4.0",
  registryId: registry.registryId,
  disk: 40,
  ports: ["22/tcp", "8888/http"],
  env: { WANDB_PROJECT: "demo" },
});

// Storage for checkpoints, in the data center the trainer is placed in.
const checkpoints = new compute.NetworkVolume("checkpoints", {
  dataCenterId: "EU-RO-1",
  size: 100,
  type: "HIGH_PERFORMANCE",
});

// The demo's SSH key, added next to the account's own keys (which stay as they are). Pods
// created with SSH afterwards receive it: they depend on it.
const sshKey = new compute.SshKey("demo-key", {
  publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMHrcO+isIZZ0XLlWJJHKmFirYnxGY5IyfEWnI2Fh1w1 demo@pulumi-compute",
});

// A GPU pod from the template, placed from candidates, with the volume mounted at /checkpoints.
// The first candidate (H200 in EU-RO-1) has no stock, so placement moves on to the next one
// instead of failing the stack. Pods from the template name the credential themselves too: a
// template is applied once, so only a pod's own `registry` moves it to a new credential.
const trainer = new compute.Pod(
  "trainer",
  {
    templateId: research.templateId,
    registry: registry.registryId,
    gpu: { id: "NVIDIA H100 80GB HBM3", minCudaVersion: "12.4" },
    placement: [
      { gpuTypeId: "NVIDIA H200", dataCenterId: "EU-RO-1" },
      { gpuTypeId: "NVIDIA H100 80GB HBM3", dataCenterId: "EU-RO-1" },
      { gpuTypeId: "NVIDIA A100-SXM4-80GB", dataCenterId: "EU-RO-1" },
    ],
    cmd: ["python", "train.py", "--epochs", "3", "--checkpoints", "/checkpoints"],
    mounts: { network: [{ volumeId: checkpoints.volumeId, path: "/checkpoints" }] },
    startSsh: true,
    startJupyter: true,
  },
  { dependsOn: [sshKey] },
);

// A notebook from the same template on a smaller GPU; env is merged per key with the template's.
const notebook = new compute.Pod(
  "notebook",
  {
    templateId: research.templateId,
    registry: registry.registryId,
    gpu: { id: "NVIDIA GeForce RTX 4090" },
    env: { JUPYTER_THEME: "dark" },
  },
  { dependsOn: [sshKey] },
);

// A CPU pod for the API in front of the model, pulling its private image with the credential.
const api = new compute.Pod("api", {
  image: "ghcr.io/example/api:1.2.0",
  registry: registry.registryId,
  cpu: { id: "cpu3c", vcpuCount: 4 },
  ports: ["8080/http"],
  env: { LOG_LEVEL: "info" },
});

// A labelled pair of sandboxes; `compute sandbox list --label demo=compute` finds them.
const sandboxes = ["a", "b"].map(
  (suffix) =>
    new compute.Sandbox(`worker-${suffix}`, {
      image: "python:3.12-slim",
      compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 },
      idleTimeoutSeconds: 3600,
      maxLifetimeSeconds: 86400,
      labels: { demo: "compute", role: "worker" },
    }),
);

// A serverless endpoint from a Hub listing's release (image, disk, env and GPU types come from
// it), as `compute serverless create --hub-id` makes one. No worker runs until requests come
// (workers.min 0), so it costs nothing idle.
const hello = new compute.ServerlessEndpoint("hello", {
  hubRepo: "dev-example/hello-serverless",
  workers: { max: 2 },
});

const describePod = (pod: compute.Pod) =>
  pulumi.output({
    name: pod.name,
    id: pod.podId,
    status: pod.status,
    placement: pulumi.interpolate`${pod.gpuTypeId.apply((g) => g ?? "")}${pod.cpuFlavorId.apply((c) => c ?? "")} in ${pod.dataCenterId}`,
    ssh: pod.sshProxyCommand,
    costPerHour: pod.costPerHour,
  });

export const pods = { trainer: describePod(trainer), notebook: describePod(notebook), api: describePod(api) };
export const trainerPlacementAttempts = trainer.placementAttempts;
export const trainerJupyterPassword = trainer.jupyterPassword; // a secret output
export const sandboxesByName = pulumi.output(
  sandboxes.map((s) =>
    pulumi.output({ name: s.name, id: s.sandboxId, state: s.state, dataCenterId: s.dataCenterId, costPerHour: s.costPerHour, expiresAt: s.expiresAt }),
  ),
);
export const environment = {
  registry: { name: registry.name, id: registry.registryId },
  template: { name: research.name, id: research.templateId },
  volume: { name: checkpoints.name, id: checkpoints.volumeId, sizeGb: checkpoints.appliedSize, dataCenterId: checkpoints.appliedDataCenterId },
  sshKey: { fingerprint: sshKey.fingerprint, type: sshKey.keyType },
};
export const endpoint = {
  name: hello.name,
  id: hello.endpointId,
  image: hello.imageApplied,
  workers: pulumi.interpolate`${hello.workersMin}–${hello.workersMax}`,
  runSync: hello.requestUrls.apply((urls) => urls.runSync ?? urls.base ?? ""),
};
