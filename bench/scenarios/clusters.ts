/**
 * Scenario 10 (issue 23): what waiting for clusters costs in API calls. Each cluster is waited
 * for until every node runs with its rank and address, and its nodes are pods: a poller that
 * reads each cluster and its members by itself pays two calls per cluster per poll. The
 * provider's shared watcher answers every waiting cluster with two lists per poll (the cluster
 * list, and the pod list with the members in it), however many clusters wait.
 *
 * 8 clusters of 2 nodes created together through the provider's runtime in-process (the code
 * the provider process runs, create → every node RUNNING), and beside it the same 8 with a naive
 * poller (a GET of the cluster and of its members every 5 s), each against its own emulator,
 * nodes taking 30 s to provision and 2 s to start. Goal: the provider pays at most half the
 * naive poller's calls per cluster (its POST, and its share of two lists per poll; the lists
 * poll faster while members change, so the share is not a fixed number of calls).
 */
import { EmulatorControl, startEmulator } from "../../emulator";
import * as runtime from "../../provider/runtime";
import { ComputeClient, ownerMark, type ClusterWithMembers } from "../../sdk";
import { clusterResource } from "../../provider/resources/cluster";
import { nativeToken } from "../../provider/resources/definition";
import { countByOperation, log, round, sleep, type Row, type ScenarioResult } from "../lib/common";

const CLUSTERS = 8;
const NODES = 2;
const INTERVAL_MS = 5000;
/** Nodes take half a minute to run, as GPU machines do: what a poller pays grows with it. */
const TIMINGS = { podProvisioningMs: 30000, podStartingMs: 2000 };
const compute = { gpuTypeId: "NVIDIA GeForce RTX 4090", gpuCountPerPod: 1, podCount: NODES };
const request = (name: string) => ({ name, type: "RAY" as const, compute, image: "rayproject/ray:2.40.0-gpu" });

/** An emulator with the fleet's stage durations; its request log starts empty. */
async function emulator() {
  const started = await startEmulator({ port: 0, profile: "fast", quiet: true, timings: TIMINGS });
  const control = new EmulatorControl(started.url, started.adminToken);
  await control.clearRequests();
  return { started, control };
}

async function provider() {
  const { started, control } = await emulator();
  runtime.configure({ get: (key: string) => ({ "compute:baseUrl": started.url, "compute:apiKey": started.apiKey })[key] });
  const handlers = runtime.resources.cluster!;
  try {
    // The preview's part (check, with its catalog read for the estimate) first: the wait's calls are counted alone.
    const checked = await Promise.all(
      Array.from({ length: CLUSTERS }, async (_, i) => {
        const name = `bench-${i}`;
        const mark = ownerMark({ organization: "o", project: "bench", stack: "clusters", backend: "file:///bench", urn: `urn:pulumi:clusters::bench::${nativeToken(clusterResource)}::${name}`, salt: "s" });
        return (await handlers.check({}, { ...request(name), ownerMark: mark, namePrefix: name, __provider: "bench" })).inputs;
      }),
    );
    await control.clearRequests();
    const begun = performance.now();
    await Promise.all(
      checked.map(async (inputs) => {
        const created = await handlers.create(inputs);
        if (created.outs.status !== "RUNNING") throw new Error(`cluster ${String(inputs.name)} is ${String(created.outs.status)}`);
      }),
    );
    return { seconds: round((performance.now() - begun) / 1000), byOperation: countByOperation((await control.requests()).filter((r) => r.path.startsWith("/v2/"))) };
  } finally {
    await started.close();
  }
}

async function naive() {
  const { started, control } = await emulator();
  const client = new ComputeClient({ baseUrl: started.url, apiKey: started.apiKey, userAgent: "naive-baseline" });
  try {
    const begun = performance.now();
    await Promise.all(
      Array.from({ length: CLUSTERS }, async (_, i) => {
        const cluster = await client.clusters.create(request(`naive-${i}`));
        const deadline = performance.now() + 10 * 60_000;
        for (;;) {
          if (performance.now() > deadline) throw new Error(`naive baseline: ${cluster.id} not RUNNING within 10 minutes`);
          await sleep(INTERVAL_MS);
          const seen: ClusterWithMembers = await client.clusters.withMembers(cluster.id);
          const state = clusterResource.states.of(seen);
          if (state === "RUNNING") return;
          if (state === "ERROR") throw new Error(`naive baseline: ${cluster.id} went to ERROR`);
        }
      }),
    );
    return { seconds: round((performance.now() - begun) / 1000), byOperation: countByOperation(await control.requests()) };
  } finally {
    await client.close();
    await started.close();
  }
}

const total = (byOperation: Record<string, number>) => Object.values(byOperation).reduce((sum, n) => sum + n, 0);

export async function run(): Promise<ScenarioResult> {
  log(`clusters: ${CLUSTERS} clusters of ${NODES} nodes through the provider's runtime, then a naive poller`);
  const [ours, theirs] = await Promise.all([provider(), naive()]);
  const perCluster = round(total(ours.byOperation) / CLUSTERS, 3)!;
  const naivePerCluster = round(total(theirs.byOperation) / CLUSTERS, 3)!;
  log(`clusters: provider ${perCluster} calls per cluster (${JSON.stringify(ours.byOperation)}), naive ${naivePerCluster}`);
  const rows: Row[] = [
    {
      scenario: "10 Clusters",
      figure: `provider, calls per cluster create→every node RUNNING, ${CLUSTERS} clusters of ${NODES} nodes together (${Object.entries(ours.byOperation).map(([op, n]) => `${op} ${n}`).join(", ")}; ${ours.seconds} s)`,
      value: perCluster.toFixed(2),
      reference: `naive ${naivePerCluster.toFixed(2)}`,
      ratio: naivePerCluster > 0 ? perCluster / naivePerCluster : null,
      goal: "ratio ≤ 0.5",
      met: naivePerCluster > 0 && perCluster / naivePerCluster <= 0.5,
    },
  ];
  return { results: { clusters: { clusters: CLUSTERS, nodes: NODES, provider: ours, naive: theirs, perCluster, naivePerCluster } }, rows };
}
