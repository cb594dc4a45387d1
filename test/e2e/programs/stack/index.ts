// A directory program for the end-to-end suites: the stack's config says which pods,
// sandboxes, clusters and serverless endpoints to declare (so a suite can change one field and run `up` again), and each
// resource's interesting outputs are exported.
import * as pulumi from "@pulumi/pulumi";
import { Cluster, Pod, Sandbox, ServerlessEndpoint, type ClusterArgs, type PodArgs, type SandboxArgs, type ServerlessEndpointArgs } from "pulumi-compute";

const config = new pulumi.Config("e2e");
const pods = config.getObject<Record<string, PodArgs>>("pods") ?? {};
const sandboxes = config.getObject<Record<string, SandboxArgs>>("sandboxes") ?? {};
// Secret env values arrive as a secret config object and are merged into every pod's env.
const secretEnv = config.getSecretObject<Record<string, string>>("secretEnv");
// A secret command, given to every pod as its `args` (the secret-echo case of the bad-input suite).
const secretArgs = config.getSecret("secretArgs");
// Resources to replace delete-first rather than create-first.
const deleteBeforeReplace = new Set(config.getObject<string[]>("deleteBeforeReplace") ?? []);

export const podOutputs: Record<string, pulumi.Output<unknown>> = {};
const podObjects: Record<string, Pod> = {};
for (const [name, args] of Object.entries(pods)) {
  const env = secretEnv ? pulumi.all([secretEnv, args.env ?? {}]).apply(([s, e]) => ({ ...e, ...s })) : args.env;
  const pod = new Pod(name, { ...args, env, ...(secretArgs ? { args: secretArgs } : {}) }, { deleteBeforeReplace: deleteBeforeReplace.has(name) });
  podObjects[name] = pod;
  podOutputs[name] = pulumi.output({
    id: pod.id,
    status: pod.status,
    dataCenterId: pod.dataCenterId,
    gpuTypeId: pod.gpuTypeId,
    placementChosen: pod.placementChosen,
    sshProxyCommand: pod.sshProxyCommand,
    costPerHour: pod.costPerHour,
    ready: pod.ready,
    expiry: pod.expiry,
  });
}

const clusters = config.getObject<Record<string, ClusterArgs>>("clusters") ?? {};
export const clusterOutputs: Record<string, pulumi.Output<unknown>> = {};
const clusterObjects: Record<string, Cluster> = {};
for (const [name, args] of Object.entries(clusters)) {
  const cluster = new Cluster(name, args, { deleteBeforeReplace: deleteBeforeReplace.has(name) });
  clusterObjects[name] = cluster;
  clusterOutputs[name] = pulumi.output({
    id: cluster.id,
    name: cluster.name,
    status: cluster.status,
    nodes: cluster.nodes,
    primary: cluster.primary,
    network: cluster.network,
    costPerHour: cluster.costPerHour,
    ready: cluster.ready,
    expiry: cluster.expiry,
  });
}

const endpoints = config.getObject<Record<string, ServerlessEndpointArgs>>("endpoints") ?? {};
export const endpointOutputs: Record<string, pulumi.Output<unknown>> = {};
for (const [name, args] of Object.entries(endpoints)) {
  const endpoint = new ServerlessEndpoint(name, args);
  endpointOutputs[name] = pulumi.output({ id: endpoint.id, workersMin: endpoint.workersMin, workersMax: endpoint.workersMax, expiry: endpoint.expiry });
}

export const sandboxOutputs: Record<string, pulumi.Output<unknown>> = {};
for (const [name, given] of Object.entries(sandboxes)) {
  // `dependsOn`: the pods and clusters (by name) this sandbox waits for: a dependent of their readiness.
  const { dependsOn, ...args } = given as SandboxArgs & { dependsOn?: string[] };
  const after = (dependsOn ?? []).map((name) => podObjects[name] ?? clusterObjects[name]!);
  const sandbox = new Sandbox(name, args, { deleteBeforeReplace: deleteBeforeReplace.has(name), dependsOn: after });
  sandboxOutputs[name] = pulumi.output({
    id: sandbox.id,
    state: sandbox.state,
    appliedIdleTimeoutSeconds: sandbox.appliedIdleTimeoutSeconds,
    expiresAt: sandbox.expiresAt,
  });
}
