import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { ComputeClient } from "../../sdk";
import { REPO_ROOT } from "./harness";
import { billingCases, describeNativeStack, type NativeStack } from "./native-stack";

jest.setTimeout(15 * 60_000);

const EXAMPLE = path.join(REPO_ROOT, "examples", "go-stack");
const SDK_MODULE = "example.com/pulumi-compute/sdk/go";

/**
 * The Go example as a user's own program outside the clone: its files copied to `dir`, and its
 * go.mod's `replace` pointed at the clone's dist/go with `go mod edit`, as docs/provider.md
 * ("Go programs") says. (examples.test.ts runs the example in place.)
 */
function copyAsUserProgram(dir: string): void {
  // A run killed before its afterAll leaves the folder; a later process may get its pid.
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  for (const file of ["Pulumi.yaml", "main.go", "go.mod", "go.sum"]) cpSync(path.join(EXAMPLE, file), path.join(dir, file));
  execFileSync("go", ["mod", "edit", `-replace=${SDK_MODULE}=${path.join(REPO_ROOT, "dist", "go")}`], { cwd: dir });
}

/**
 * The Go example (examples/go-stack) through the real engine: the Go language host of sdk/v3
 * v3.66.0 behind our launcher (both next to `pulumi`), the Go SDK generated into dist/go by
 * scripts/setup-go.sh, sdk/v3 v3.248.0 from the program's go.mod, and the native plugin. Beside
 * the GPU pod and the sandbox: the network volume the pod mounts, and the stack. The program
 * is built once and run prebuilt (`runtime.options.binary`) by every case but the one that
 * makes the host build it.
 */
describe("a Go stack through the generated SDK and the native plugin", () => {
  // Named now (the shared cases take the folder when they are declared), made in the first
  // beforeAll, which runs before theirs.
  const dir = path.join(tmpdir(), `compute-go-stack-${process.pid}`);
  const projectFile = path.join(dir, "Pulumi.yaml");
  const project = readFileSync(path.join(EXAMPLE, "Pulumi.yaml"), "utf8");
  const withOptions = (options: Record<string, string>) =>
    writeFileSync(projectFile, project.replace(/^runtime: go$/m, ["runtime:", "  name: go", "  options:", ...Object.entries(options).map(([key, value]) => `    ${key}: ${value}`)].join("\n")));
  let shared: NativeStack;
  /** The volume made outside the stack that the program reads (sharedVolume). */
  let outside: string | undefined;
  // The program built once, as a user's CI builds it, and run by every case through
  // `runtime.options.binary`: the host would otherwise build it again for each of the suite's
  // dozen engine operations (a link of 2-3 CPU-seconds each). The host's own build is proven
  // by the `buildTarget` case below, examples.test.ts (the example in place) and first-steps.
  const binary = path.join(dir, "bin", "go-stack");
  const prebuilt = () => withOptions({ binary });
  beforeAll(() => {
    copyAsUserProgram(dir);
    execFileSync("go", ["build", "-o", binary, "."], { cwd: dir });
    prebuilt();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describeNativeStack("go", dir, 2, (stack) => {
    shared = stack;

    it("places the GPU pod on the cheapest secure type in stock in the volume's data center, and keeps the Jupyter password secret", async () => {
      const client = new ComputeClient({ baseUrl: stack.e2e.emulator.url, apiKey: stack.e2e.emulator.apiKey, env: {} });
      const outputs = await stack.e2e.stack.outputs();
      const [pod, volume, catalog] = await Promise.all([
        client.pods.get(stack.last.podId),
        client.networkVolumes.get(outputs.volumeId.value as string),
        client.catalog.gpuTypes({ includeAvailability: true }),
      ]);
      await client.close();
      // The program's rule (main.go, cheapestInStock), worked out here from the catalog.
      const candidates = catalog
        .filter((gpu) => gpu.secure && gpu.memory >= 80 && (gpu.dataCenters ?? []).some((dc) => dc.id === "US-TX-3" && dc.availability !== "NONE"))
        .sort((a, b) => a.price.secure - b.price.secure);
      expect(candidates.length).toBeGreaterThan(0);
      expect(outputs.gpuTypeId.value).toBe(candidates[0].id);
      expect(pod.gpu?.id).toBe(candidates[0].id);
      expect(pod.dataCenterId).toBe("US-TX-3");
      expect(volume.dataCenter).toBe("US-TX-3");
      expect(outputs.jupyterPassword.secret).toBe(true);
      const password = pod.env.JUPYTER_PASSWORD;
      expect(password).toEqual(expect.any(String));
      expect(await stack.e2e.stateText()).not.toContain(password);
    });

    it("without volumeId, the pod is replaced onto the stack's own volume", async () => {
      await stack.e2e.stack.removeConfig("volumeId");
      // This run also reads a volume made outside the stack (sharedVolume; the next case looks
      // at it), so that proof costs no run of its own. The engine counts a read step only once
      // it had read the resource before and the outputs changed (pkg/engine/update.go,
      // shouldRecordReadStep): this first read is counted under no kind.
      const setup = new ComputeClient({ baseUrl: stack.e2e.emulator.url, apiKey: stack.e2e.emulator.apiKey, env: {} });
      outside = (await setup.networkVolumes.create({ name: "shared-datasets", dataCenter: "US-TX-3", size: 75 })).id;
      stack.outsideVolumes.push(outside);
      await setup.close();
      const { out, summary } = await stack.upWith({ sharedVolume: "shared-datasets" });
      expect(summary).toEqual({ same: 3, replace: 1 });
      const client = new ComputeClient({ baseUrl: stack.e2e.emulator.url, apiKey: stack.e2e.emulator.apiKey, env: {} });
      const pod = await client.pods.get(out.podId);
      await client.close();
      expect(pod.mounts.network).toEqual([{ volumeId: out.volumeId, path: "/mnt/datasets" }]);
      stack.last = out;
      stack.podIds.push(out.podId);
    });

    it("read the volume made outside the stack: found by name (LookupNetworkVolume), then read by its id (GetNetworkVolume), never owned", async () => {
      const client = new ComputeClient({ baseUrl: stack.e2e.emulator.url, apiKey: stack.e2e.emulator.apiKey, env: {} });
      const live = await client.networkVolumes.get(outside!);
      await client.close();
      expect(stack.last).toMatchObject({ sharedVolumeFoundId: live.id, sharedVolumeFoundSize: live.size, sharedVolumeId: live.id, sharedVolumeSize: live.size, sharedVolumeDataCenter: live.dataCenter });
      // Recorded as a read resource (`external`), the only one: destroy only drops it from the state.
      const resources = (await stack.e2e.stack.exportStack()).deployment.resources as Array<{ type: string; id?: string; external?: boolean }>;
      expect(resources.filter((r) => r.external === true).map((r) => [r.type, r.id])).toEqual([["compute:index:NetworkVolume", live.id]]);
    });

    it("runtime.options: a prebuilt `binary` runs without the sources, and `buildTarget` keeps the build", async () => {
      const sources = path.join(dir, "main.go");
      try {
        // Without main.go the host could not build: the preview ran the binary.
        renameSync(sources, `${sources}.aside`);
        expect((await stack.e2e.stack.preview()).changeSummary).toEqual({ same: 4 });
        renameSync(`${sources}.aside`, sources);
        withOptions({ buildTarget: "bin/built" });
        expect((await stack.e2e.stack.preview()).changeSummary).toEqual({ same: 4 });
        expect(existsSync(path.join(dir, "bin", "built"))).toBe(true);
      } finally {
        if (existsSync(`${sources}.aside`)) renameSync(`${sources}.aside`, sources);
        prebuilt();
      }
    });

    it.each([
      ["a missing binary", { binary: "bin/missing" }, /unable to find 'bin\/missing' executable/],
      ["binary with buildTarget", { binary: "bin/go-stack", buildTarget: "bin/built" }, /runtime\.options\.binary and buildTarget in \S+Pulumi\.yaml cannot both be set for this Go language host \(sdk\/v3 v3\.66\.0/],
      ["an option the host does not read", { goFlags: "-race" }, /runtime\.options\.goFlags in \S+Pulumi\.yaml is not supported by this Go language host \(sdk\/v3 v3\.66\.0[^)]*\), which reads only binary and buildTarget/],
    ])("runtime.options: %s fails at start, naming it", async (_what, options, message) => {
      try {
        withOptions(options);
        await expect(stack.e2e.stack.preview()).rejects.toThrow(message);
      } finally {
        prebuilt();
      }
    });

    billingCases(stack);
  });

  it("destroy deleted the stack's network volume too", async () => {
    const client = new ComputeClient({ baseUrl: shared.e2e.emulator.url, apiKey: shared.e2e.emulator.apiKey, env: {} });
    const volumes = (await client.networkVolumes.list()).map((volume) => volume.id);
    await client.close();
    expect(shared.last.volumeId).toEqual(expect.any(String));
    expect(volumes).not.toContain(shared.last.volumeId);
  });

  it("destroy left the volume the stack only read", async () => {
    const client = new ComputeClient({ baseUrl: shared.e2e.emulator.url, apiKey: shared.e2e.emulator.apiKey, env: {} });
    const volumes = await client.networkVolumes.list();
    await client.close();
    expect(outside).toEqual(expect.any(String));
    expect(volumes.find((volume) => volume.id === outside)).toMatchObject({ name: "shared-datasets", size: 75 });
  });
});
