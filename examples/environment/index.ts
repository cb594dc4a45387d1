// The environment pods and endpoints are made from, declared beside them: a private registry's
// credential, a template that pulls with it, a network volume, an SSH key; then a GPU pod from
// the template with the volume mounted, and a serverless endpoint whose workers mount it too.
import * as pulumi from "@pulumi/pulumi";
import * as compute from "pulumi-compute";

const config = new pulumi.Config();
// Everything lives in one data center: a pod or endpoint mounts a network volume only there.
const dataCenterId = config.get("dataCenterId") ?? "US-TX-3";

// Username and password are write-only: always secrets in the state, never read back. Any
// change makes a new credential (created before the old one is deleted).
const registry = new compute.RegistryCredential("ghcr", {
  username: config.get("registryUsername") ?? "ci-bot",
  password: config.getSecret("registryToken") ?? "example-token",
});

// Every input of a template changes in place; pods made from it keep what it gave them at
// create (a preview says so when it changes).
const template = new compute.Template("trainer", {
  image: "ghcr.io/example/trainer:1.4.0",
  registryId: registry.registryId,
  args: "python train.py --data /data",
  disk: 40,
  ports: ["22/tcp", "8888/http"],
  env: { WANDB_PROJECT: "environment" },
  startJupyter: false,
});

// Growing `size` later is an update in place; a smaller size is refused at preview.
const volume = new compute.NetworkVolume("datasets", { dataCenterId, size: 50 });

// One key added beside the account's own (a destroy removes only this one). Set `publicKey`
// to your ~/.ssh/id_ed25519.pub to log in to the pod.
const sshKey = new compute.SshKey("me", {
  publicKey: config.get("publicKey") ?? "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAagQk6tvBOHm9F00EIOTcY6cmnf3qWaiQo9exxukkQ6 env-ts@example",
});

// A pod receives the keys registered when it is created: it depends on the key. It names the
// credential itself too: a template is applied once, so only the pod's own `registry` moves it
// to a new credential (the old one cannot be deleted while a pod still pulls with it).
const trainer = new compute.Pod(
  "trainer",
  {
    templateId: template.templateId,
    registry: registry.registryId,
    gpu: { id: "NVIDIA GeForce RTX 4090" },
    dataCenterIds: [dataCenterId],
    mounts: { network: [{ volumeId: volume.volumeId, path: "/data" }] },
  },
  { dependsOn: [sshKey] },
);

// Queue workers on 24 GB Ada GPUs with the same image and volume. One worker always on: the
// preview prints its price, and the price at `workers.max` beside it.
const inference = new compute.ServerlessEndpoint("inference", {
  type: "QUEUE",
  image: "ghcr.io/example/trainer:1.4.0",
  registryId: registry.registryId,
  args: "python serve.py",
  gpu: { pools: ["ADA_24"] },
  scaling: { type: "QUEUE_DELAY", queueDelay: 4 },
  workers: { min: 1, max: 3 },
  dataCenterIds: [dataCenterId],
  networkVolumeIds: [volume.volumeId],
});

export const registryId = registry.registryId;
export const templateId = template.templateId;
export const volumeId = volume.volumeId;
export const sshKeyFingerprint = sshKey.fingerprint;
export const podId = trainer.podId;
export const ssh = trainer.sshProxyCommand;
export const endpointId = inference.endpointId;
export const runUrl = inference.requestUrls.apply((urls) => urls.run);
