/**
 * The upgrade suites (upgrade-typescript.test.ts, upgrade-yaml.test.ts): a stack recorded by an
 * earlier build (test/upgrades/README.md) handed to this clone's build, as a user who upgrades
 * the package in the same project has it. The service's side comes back from the emulator's
 * saved state, so no old build runs here: the recording's state, its stack settings file (the
 * secrets salt, the config), its program, and this clone's package and plugin.
 *
 * The one thing changed on the way in is the service's URL: the recording names the port of the
 * emulator that played the service then, and the restored emulator listens on another.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { EmulatorControl, startEmulator } from "../../emulator";
import { ComputeClient, NotFoundError } from "../../sdk";
import { resourceByToken } from "../../provider/resources";
import { engineEnv, pulumiCommand, pulumiHome, REPO_ROOT } from "../../scripts/lib/engine";
import { mutations } from "./cost-policy";
import { engineFilesInsteadOfCli, fileStore, runPulumi, type CliResult, type Deployment } from "./harness";
import { checkpointCrypter, secretsShown } from "./engine-files";
import { PROVIDER_KEY } from "../../provider/runtime/props";
import { packageBuild } from "../../sdk/version";
import { recordings, type Face, type Recording } from "../upgrades/recordings";

export type { Face };

/** One resource of a state: what the suites compare before and after. */
type StateResource = NonNullable<Deployment["resources"]>[number];

/** The resources of this package in a deployment, by URN (providers and the stack left out). */
export function computeResources(deployment: Deployment): Map<string, StateResource> {
  return new Map((deployment.resources ?? []).filter((r) => resourceByToken(r.type)).map((r) => [r.urn!, r]));
}

export interface RestoredStack {
  stack: Stack;
  control: EmulatorControl;
  /** The recording's state, as imported. */
  recorded: Map<string, StateResource>;
  /** The stack's state now (`pulumi stack export`, secrets decrypted). */
  state(): Promise<Deployment>;
  /** Everything the state backend holds (state, history, backups), as text: secrets only as ciphertext. */
  stateText(): Promise<string>;
  /** `pulumi <args>` in the program's folder with the stack's environment; resolves whatever its exit code. */
  cli(args: string[]): Promise<CliResult>;
  /** The recorded resources the service still has and that have not ended (what still bills or holds data). */
  stillThere(): Promise<string[]>;
  dispose(): Promise<void>;
}

/**
 * The recording brought back: the emulator from its saved state (its clock running again from the
 * recorded instant), the program in a folder of this clone (so `pulumi-compute` is this build, as
 * in a user's upgraded project), and the state imported into a new file backend.
 */
export async function restore(recording: Recording, pass: string): Promise<RestoredStack> {
  const scratch = mkdtempSync(path.join(tmpdir(), `compute-upgrade-${pass}-`));
  const dataDir = path.join(scratch, "emulator");
  mkdirSync(dataDir, { recursive: true });
  cpSync(path.join(recording.dir, "emulator.json"), path.join(dataDir, "state.json"));
  const emulator = await startEmulator({ port: 0, profile: "fast", quiet: true, dataDir }).catch((error: unknown) => {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  });
  // Inside the clone, where `pulumi-compute` resolves to this build; removed at the end.
  const workDir = path.join(REPO_ROOT, ".test-home", "upgrades", `${recording.name.replace(/\//g, "-")}-${recording.face}-${pass}-${process.pid}`);
  try {
    const control = new EmulatorControl(emulator.url, emulator.adminToken);
    await control.unfreezeClock();
    const { baseUrl, stack: stackName, passphrase } = recording.meta;
    const moved = (text: string) => text.split(baseUrl).join(emulator.url);
    rmSync(workDir, { recursive: true, force: true });
    mkdirSync(workDir, { recursive: true });
    for (const file of readdirSync(recording.dir)) {
      if (["stack.json", "emulator.json", "recording.json"].includes(file)) continue;
      writeFileSync(path.join(workDir, file), moved(readFileSync(path.join(recording.dir, file), "utf8")));
    }
    const deployment = JSON.parse(moved(readFileSync(path.join(recording.dir, "stack.json"), "utf8"))) as { deployment: Deployment };
    const store = fileStore(path.join(scratch, "state"));
    const envVars = engineEnv(store, passphrase);
    const home = await pulumiHome();
    const workspace = await LocalWorkspace.create({ workDir, pulumiHome: home, envVars, pulumiCommand: await pulumiCommand() });
    // The recorded settings file is in place first: `stack init` keeps its secrets salt.
    const stack = await Stack.create(stackName, workspace);
    await stack.importStack(deployment as never);
    engineFilesInsteadOfCli(stack, store, workDir, passphrase);
    const api = new ComputeClient({ baseUrl: emulator.url, apiKey: emulator.apiKey, env: {} });
    const env = { ...process.env, ...envVars, PULUMI_HOME: home };
    return {
      stack,
      control,
      recorded: computeResources(deployment.deployment),
      async state() {
        // Secrets as plaintext: outputs compare by value, whatever nonce each write chose.
        const deployment = await store.latest(stackName);
        return secretsShown(deployment, await checkpointCrypter(deployment, passphrase));
      },
      stateText: () => store.text(),
      cli: (args) => runPulumi(workDir, stackName, env, args),
      async stillThere() {
        const left: string[] = [];
        for (const resource of computeResources(deployment.deployment).values()) {
          const definition = resourceByToken(resource.type)!;
          const live = await definition
            .family(api)
            .get(resource.id!)
            .catch((error: unknown) => (error instanceof NotFoundError ? undefined : Promise.reject(error)));
          if (live && !definition.states.ended.has(definition.states.of(live))) left.push(`${resource.urn} (${resource.id})`);
        }
        return left;
      },
      async dispose() {
        await emulator.close();
        rmSync(workDir, { recursive: true, force: true });
        rmSync(scratch, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await emulator.close();
    rmSync(workDir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
}

/** Preview steps that would replace, delete or create what the recorded stack holds. */
const DISRUPTIVE = new Set(["create", "delete", "replace", "create-replacement", "delete-replaced", "discard", "import", "import-replacement"]);

interface PreviewStep {
  op: string;
  urn: string;
}

/** The secret config values record-upgrade.sh gives every recording. */
const RECORDED_SECRETS = ["recorded-wandb-key", "recorded-registry-password"];

const idsOf = (resources: Map<string, StateResource>) => new Map([...resources].map(([urn, r]) => [urn, r.id]));

/**
 * A resource's recorded outputs but for `keys`. An empty `secretInputs` list (recorded by builds
 * up to issue 43's) and none (recorded since) say the same, so both read as none.
 */
function outputsBut(resource: StateResource | undefined, keys: string[]): Record<string, unknown> {
  const emptyList = (key: string, value: unknown) => key === "secretInputs" && Array.isArray(value) && value.length === 0;
  return Object.fromEntries(Object.entries(resource?.outputs ?? {}).filter(([key, value]) => !keys.includes(key) && !emptyList(key, value)));
}

/**
 * What an upgrade must leave alone, for every recording of `face`:
 * - `destroy` straight after the upgrade (no `up` between, so the state's own provider runs it:
 *   a dynamic resource's recorded `__provider`) leaves nothing;
 * - `refresh` drops nothing; `preview` replaces, deletes and creates nothing; `up` keeps every
 *   id and asks the service to change nothing;
 * - the only updates are the dynamic face's `__provider` (the engine runs `refresh` and
 *   `destroy` with the recorded one, so a new build must reach the state): `preview` updates
 *   exactly the resources whose `__provider` the `up` then rewrites, to today's build, and
 *   nothing else in their state changes (but an empty `secretInputs` list, no longer
 *   recorded); the native face shows no update at all;
 * - a small real change (a sandbox's idle timeout) still updates in place; `destroy` then
 *   leaves nothing.
 */
export function describeUpgrades(face: Face): void {
  // What an update after an upgrade may change: the forwarder, in the dynamic face only.
  const updates = face === "typescript" ? [PROVIDER_KEY] : [];
  describe.each(recordings(face).map((recording) => [recording.name, recording] as const))("a %s stack", (_name, recording) => {
    it("is destroyed straight after the upgrade, leaving nothing", async () => {
      const restored = await restore(recording, "destroy");
      try {
        expect(restored.recorded.size).toBeGreaterThan(0);
        expect(await restored.stillThere()).toHaveLength(restored.recorded.size);
        await restored.stack.destroy();
        expect(await restored.stillThere()).toEqual([]);
        expect(computeResources(await restored.state()).size).toBe(0);
      } finally {
        await restored.dispose();
      }
    });

    it("refreshes, previews and comes up unchanged; a real change updates in place; destroy leaves nothing", async () => {
      const restored = await restore(recording, "upgrade");
      try {
        const recordedIds = idsOf(restored.recorded);

        await restored.stack.refresh();
        const refreshed = computeResources(await restored.state());
        expect(idsOf(refreshed)).toEqual(recordedIds);

        const preview = await restored.cli(["preview", "--json"]);
        expect(preview).toMatchObject({ code: 0 });
        const steps = (JSON.parse(preview.stdout) as { steps?: PreviewStep[] }).steps ?? [];
        expect(steps.filter((step) => DISRUPTIVE.has(step.op))).toEqual([]);
        const updated = steps
          .filter((step) => step.op === "update")
          .map((step) => step.urn)
          .sort();

        await restored.control.clearRequests();
        await restored.stack.up();
        const upgraded = computeResources(await restored.state());
        expect(idsOf(upgraded)).toEqual(recordedIds);
        expect(await mutations(restored)).toEqual([]);
        // A read resource (a `get`, recorded since 0.3.0) is read again by every `up`, not
        // updated: its new forwarder comes with the read, and the preview shows it as a read.
        const rewritten = [...upgraded.keys()]
          .filter((urn) => !upgraded.get(urn)!.external && updates.some((key) => upgraded.get(urn)!.outputs?.[key] !== refreshed.get(urn)?.outputs?.[key]))
          .sort();
        expect(updated).toEqual(rewritten);
        for (const urn of updated) expect([urn, outputsBut(upgraded.get(urn), updates)]).toEqual([urn, outputsBut(refreshed.get(urn), updates)]);
        // Every forwarder in the state is today's build's after the `up` (its captured build string).
        if (face === "typescript") for (const [urn, resource] of upgraded) expect([urn, String(resource.outputs?.[PROVIDER_KEY])]).toEqual([urn, expect.stringContaining(JSON.stringify(packageBuild()))]);
        // The recording's secrets (record-upgrade.sh) stay ciphertext through the upgrade, in
        // everything the backend holds.
        const stateText = await restored.stateText();
        for (const secret of RECORDED_SECRETS) expect(stateText).not.toContain(secret);

        await restored.stack.setConfig("scratchIdleTimeout", { value: "1200" });
        const changed = await restored.stack.up();
        expect(changed.summary.resourceChanges).toMatchObject({ update: 1 });
        const after = computeResources(await restored.state());
        expect(idsOf(after)).toEqual(recordedIds);
        const scratch = [...after].find(([urn]) => urn.endsWith("::scratch"))![1];
        expect(scratch.outputs).toMatchObject({ idleTimeoutSeconds: 1200 });

        await restored.stack.destroy();
        expect(await restored.stillThere()).toEqual([]);
      } finally {
        await restored.dispose();
      }
    });
  });
}
