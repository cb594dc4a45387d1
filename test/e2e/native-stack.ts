/**
 * What every program on the native plugin must do through the real engine, whatever its
 * language: the YAML program (test/e2e/yaml.test.ts), the Python example
 * (test/e2e/python.test.ts) and the Go example (test/e2e/go.test.ts) declare a pod with a
 * network volume and a sandbox from the same stack config (`volumeId`, `mountPath`, `startSsh`,
 * `idleTimeoutSeconds`, the secret `apiToken`) and export the same outputs, so one table of
 * cases drives them all.
 */
import { ComputeClient } from "../../sdk";
import { runCli } from "../cli/helpers";
import { createE2EStack, noIds, type E2EStack } from "./harness";

export const API_TOKEN = "native-secret-token-42";

export type NativeOutputs = {
  podId: string;
  podStatus: string;
  sandboxId: string;
  sandboxState: string;
  appliedIdleTimeoutSeconds: number;
  [more: string]: unknown;
};

export interface NativeStack {
  e2e: E2EStack;
  /** The outputs of the last `up`. */
  last: NativeOutputs;
  /** Every pod id `podId` has had, the replaced ones first. */
  podIds: string[];
  /** The past whole hour the programs' billing functions read (`billingFrom`, `billingTo`). */
  billingWindow: { from: string; to: string };
  upWith(config: Record<string, string>): Promise<{ out: NativeOutputs; summary: Record<string, number>; output: string }>;
  /** Volumes a case made outside the stack, as a user would: the stack's destroy must leave exactly these. */
  outsideVolumes: string[];
}

/**
 * The shared cases, in order, over one stack of `program` (a folder of test/e2e/programs, or an
 * absolute path);
 * `others` is how many resources the program declares besides the pod and the sandbox (the
 * stack itself included). Returns the stack for a language's own cases, which run after these
 * and before the final destroy.
 */
export function describeNativeStack(name: string, program: string, others: number, more: (stack: NativeStack) => void = () => undefined): void {
  const total = others + 2;
  const stack = { last: undefined as unknown as NativeOutputs, outsideVolumes: [] as string[], podIds: [] as string[] } as NativeStack;

  stack.upWith = async (config) => {
    for (const [key, value] of Object.entries(config)) await stack.e2e.stack.setConfig(key, { value });
    let output = "";
    const result = await stack.e2e.stack.up({ onOutput: (text) => (output += text) });
    const out = Object.fromEntries(Object.entries(result.outputs).map(([key, value]) => [key, value.value])) as NativeOutputs;
    return { out, summary: result.summary.resourceChanges as Record<string, number>, output };
  };

  beforeAll(async () => {
    stack.e2e = await createE2EStack(name, { program });
    await stack.e2e.stack.setConfig("apiToken", { value: API_TOKEN, secret: true });
    // A past whole hour: what was billed in it no longer changes (programs that read billing read this one).
    const to = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    stack.billingWindow = { from: new Date(to - 3_600_000).toISOString(), to: new Date(to).toISOString() };
    await stack.e2e.stack.setAllConfig({ billingFrom: { value: stack.billingWindow.from }, billingTo: { value: stack.billingWindow.to } });
  });
  afterAll(() => stack.e2e?.dispose());

  it("up creates the pod and the sandbox RUNNING, with nothing found on PATH", async () => {
    const { out, summary, output } = await stack.upWith({});
    expect(summary).toEqual({ create: total });
    expect(out).toMatchObject({ podStatus: "RUNNING", sandboxState: "RUNNING", appliedIdleTimeoutSeconds: 600 });
    // The language host, the plugin and the engine's other helpers all come from where
    // scripts/setup.sh puts them, so the engine has nothing to warn about.
    expect(output).not.toMatch(/from \$PATH/);
    const ids = await stack.e2e.stateIds();
    expect(ids.pod).toContain(out.podId);
    expect(ids.sandbox).toEqual([out.sandboxId]);
    expect(await stack.e2e.liveIds()).toEqual(ids);
    stack.last = out;
    stack.podIds.push(out.podId);
  });

  it("a secret config value reaches the pod and stays out of the state in plaintext", async () => {
    const client = new ComputeClient({ baseUrl: stack.e2e.emulator.url, apiKey: stack.e2e.emulator.apiKey, env: {} });
    const pod = await client.pods.get(stack.last.podId);
    await client.close();
    expect(pod.env).toMatchObject({ API_TOKEN: API_TOKEN });
    const state = await stack.e2e.stateText();
    expect(state).toContain(`"id":"${stack.last.podId}"`);
    expect(state).not.toContain(API_TOKEN);
    expect(state).not.toContain(stack.e2e.emulator.apiKey);
  });

  it("preview, refresh and preview again show no changes", async () => {
    expect((await stack.e2e.stack.preview()).changeSummary).toEqual({ same: total });
    const refresh = await stack.e2e.stack.refresh();
    expect(refresh.summary.resourceChanges).toEqual({ same: total });
    expect((await stack.e2e.stack.preview()).changeSummary).toEqual({ same: total });
  });

  it("changing the mount path updates the same pod in place", async () => {
    const { out, summary } = await stack.upWith({ mountPath: "/mnt/datasets" });
    expect(summary).toEqual({ same: total - 1, update: 1 });
    expect(out.podId).toBe(stack.last.podId);
    expect(out.podStatus).toBe("RUNNING");
  });

  it.each([
    ["startSsh", async () => ({ startSsh: "true" })],
    [
      "the network volume",
      async () => {
        // A second volume in the pod's data center, made outside the stack as a user would have.
        const client = new ComputeClient({ baseUrl: stack.e2e.emulator.url, apiKey: stack.e2e.emulator.apiKey, env: {} });
        const volume = await client.networkVolumes.create({ name: "datasets-tx-2", dataCenter: "US-TX-3", size: 50 });
        await client.close();
        stack.outsideVolumes.push(volume.id);
        return { volumeId: volume.id };
      },
    ],
  ])("changing %s replaces the pod: a new id, the old one gone from the service", async (_what, change) => {
    const { out, summary } = await stack.upWith(await change());
    expect(summary).toEqual({ same: total - 1, replace: 1 });
    expect(out.podId).not.toBe(stack.last.podId);
    expect(out.podStatus).toBe("RUNNING");
    const live = await stack.e2e.liveIds();
    expect(live.pod).toContain(out.podId);
    expect(live.pod).not.toContain(stack.last.podId);
    stack.last = out;
    stack.podIds.push(out.podId);
  });

  it("changing the sandbox's idle timeout updates it in place", async () => {
    const { out, summary } = await stack.upWith({ idleTimeoutSeconds: "900" });
    expect(summary).toEqual({ same: total - 1, update: 1 });
    expect(out.sandboxId).toBe(stack.last.sandboxId);
    expect(out.appliedIdleTimeoutSeconds).toBe(900);
    expect((await stack.e2e.stack.preview()).changeSummary).toEqual({ same: total });
    stack.last = out;
  });

  more(stack);

  it("destroy leaves nothing in the emulator but what was made outside the stack", async () => {
    await stack.e2e.stack.destroy();
    expect(await stack.e2e.liveIds()).toEqual({ ...noIds(), volume: [...stack.outsideVolumes].sort() });
    expect(await stack.e2e.stateIds()).toEqual(noIds());
  });
}

/**
 * The billing cases of a program that reads billing (`clusterSpend`: the records of
 * `getClusterBilling` for `billingWindow`) and replaces its pod: the function answers the
 * service's own records, and `compute cost --stack` lists the replaced pods beside the current
 * one, with a total equal to the service's billing for them.
 */
export function billingCases(stack: NativeStack): void {
  it("the program's billing function answers the service's billing records for the window", async () => {
    const { emulator } = stack.e2e;
    const { from, to } = stack.billingWindow;
    const answer = await fetch(`${emulator.url}/v2/billing/clusters?bucketSize=hour&startTime=${from}&endTime=${to}`, { headers: { Authorization: `Bearer ${emulator.apiKey}` } });
    const truth = ((await answer.json()) as { records: Array<Record<string, unknown>> }).records;
    expect(truth.length).toBeGreaterThan(0); // the fixture's cluster ran in that hour
    const pick = (r: Record<string, unknown>) => ({ clusterId: r.clusterId, startTime: Date.parse(r.startTime as string), endTime: Date.parse(r.endTime as string), totalAmount: r.totalAmount });
    expect((stack.last.clusterSpend as Array<Record<string, unknown>>).map(pick)).toEqual(truth.map(pick));
  });

  it("`compute cost --stack` lists the pods it replaced beside the current one, with the service's billing for them", async () => {
    expect(stack.podIds.length).toBeGreaterThan(1);
    const day = 86_400_000;
    const from = new Date(Date.now() - day).toISOString();
    const to = new Date(Date.now() + day).toISOString();
    const { emulator } = stack.e2e;
    const env = { ...stack.e2e.env(), COMPUTE_BASE_URL: emulator.url, COMPUTE_API_KEY: emulator.apiKey };
    const result = await runCli(["cost", "--stack", stack.e2e.stack.name, "--cwd", stack.e2e.workDir, "--from", from, "--to", to, "--json"], env, 60_000);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    const report = JSON.parse(result.stdout) as { resources: Array<{ kind: string; id: string; source: string; actual: number | null }>; total: number };
    const [current, ...replaced] = [...stack.podIds].reverse();
    const rows = report.resources.filter((r) => stack.podIds.includes(r.id)).map((r) => [r.id, r.source]);
    expect(rows.sort()).toEqual([[current, "state"], ...replaced.map((id) => [id, "destroyed"])].sort());
    let truth = 0;
    for (const row of report.resources.filter((r) => r.actual !== null)) {
      const route = row.kind === "Pod" ? "pods?podId" : "network-volumes?networkVolumeId";
      const answer = await fetch(`${emulator.url}/v2/billing/${route}=${row.id}&bucketSize=day&startTime=${from}&endTime=${to}`, { headers: { Authorization: `Bearer ${emulator.apiKey}` } });
      truth += ((await answer.json()) as { metadata: { totals: { totalAmount: number } } }).metadata.totals.totalAmount;
    }
    expect(report.total).toBeCloseTo(truth, 2);
    expect(report.resources.find((r) => r.kind === "Sandbox")?.actual).toBeNull();
  });
}
