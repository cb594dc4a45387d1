import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { ComputeClient } from "../../sdk";
import { REPO_ROOT } from "./harness";
import { describeNativeStack, type NativeStack } from "./native-stack";

jest.setTimeout(15 * 60_000);

const EXAMPLE = path.join(REPO_ROOT, "examples", "go-stack");
const SDK_MODULE = "example.com/pulumi-compute/sdk/go";

/**
 * The Go example as a user's own program outside the clone: its files copied to a folder of
 * their own, and its go.mod's `replace` pointed at the clone's dist/go with `go mod edit`, as
 * docs/provider.md ("Go programs") says. (examples.test.ts runs the example in place.)
 */
function userProgram(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "compute-go-stack-"));
  for (const file of ["Pulumi.yaml", "main.go", "go.mod", "go.sum"]) cpSync(path.join(EXAMPLE, file), path.join(dir, file));
  execFileSync("go", ["mod", "edit", `-replace=${SDK_MODULE}=${path.join(REPO_ROOT, "dist", "go")}`], { cwd: dir });
  return dir;
}

/**
 * The Go example (examples/go-stack) through the real engine: the Go language host of sdk/v3
 * v3.66.0 behind our launcher (both next to `pulumi`), the Go SDK generated into dist/go by
 * scripts/setup-go.sh, sdk/v3 v3.248.0 from the program's go.mod, and the native plugin. Beside
 * the GPU pod and the sandbox: the network volume the pod mounts, and the stack.
 */
describe("a Go stack through the generated SDK and the native plugin", () => {
  const dir = userProgram();
  const projectFile = path.join(dir, "Pulumi.yaml");
  const project = readFileSync(projectFile, "utf8");
  let shared: NativeStack;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describeNativeStack("go", dir, 2, (stack) => {
    shared = stack;

    it("places the GPU pod from getGpuTypes beside the stack's volume, and keeps the Jupyter password secret", async () => {
      const client = new ComputeClient({ baseUrl: stack.e2e.emulator.url, apiKey: stack.e2e.emulator.apiKey, env: {} });
      const outputs = await stack.e2e.stack.outputs();
      const pod = await client.pods.get(stack.last.podId);
      const volume = await client.networkVolumes.get(outputs.volumeId.value as string);
      await client.close();
      // The program chose the GPU type from the catalog; the pod runs on it, in the data center
      // of the stack's volume (the cases above moved its mount to a volume of the same one).
      expect(pod.gpu?.id).toBe(outputs.gpuTypeId.value);
      expect(pod.dataCenterId).toBe("US-TX-3");
      expect(volume.dataCenter).toBe("US-TX-3");
      expect(outputs.jupyterPassword.secret).toBe(true);
      const password = pod.env.JUPYTER_PASSWORD;
      expect(password).toEqual(expect.any(String));
      expect(await stack.e2e.stateText()).not.toContain(password);
    });

    it("runtime.options reach the host: a prebuilt `binary` runs, a missing one and an unknown option fail at start", async () => {
      const binary = path.join(dir, "bin", "go-stack");
      execFileSync("go", ["build", "-o", binary, "."], { cwd: dir });
      const withOptions = (options: string) => writeFileSync(projectFile, project.replace(/^runtime: go$/m, `runtime:\n  name: go\n  options:\n${options}`));
      try {
        withOptions(`    binary: ${binary}\n`);
        expect((await stack.e2e.stack.preview()).changeSummary).toEqual({ same: 4 });
        withOptions(`    binary: ${path.join(dir, "bin", "missing")}\n`);
        await expect(stack.e2e.stack.preview()).rejects.toThrow(/unable to find '\S+\/bin\/missing' executable/);
        withOptions(`    binary: ${binary}\n    goFlags: -race\n`);
        await expect(stack.e2e.stack.preview()).rejects.toThrow(/runtime\.options\.goFlags in \S+Pulumi\.yaml is not supported by this Go language host \(sdk\/v3 v3\.66\.0[^)]*\), which reads only binary and buildTarget/);
      } finally {
        writeFileSync(projectFile, project);
      }
    });
  });

  it("destroy deleted the stack's network volume too", async () => {
    const client = new ComputeClient({ baseUrl: shared.e2e.emulator.url, apiKey: shared.e2e.emulator.apiKey, env: {} });
    const volumes = (await client.networkVolumes.list()).map((volume) => volume.id);
    await client.close();
    expect(shared.last.volumeId).toEqual(expect.any(String));
    expect(volumes).not.toContain(shared.last.volumeId);
  });
});
