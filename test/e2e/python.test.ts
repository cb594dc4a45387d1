import * as path from "node:path";
import { ComputeClient } from "../../sdk";
import { REPO_ROOT } from "./harness";
import { billingCases, describeNativeStack } from "./native-stack";

jest.setTimeout(15 * 60_000);

/**
 * The Python example (examples/python-stack) through the real engine: the Python language host
 * next to `pulumi`, the generated `pulumi_compute` SDK and pulumi==3.248.0 in the virtualenv
 * scripts/setup-python.sh makes, and the native plugin. Beside the GPU pod and the sandbox: a CPU
 * pod and the stack.
 */
describe("a Python stack through the generated SDK and the native plugin", () => {
  describeNativeStack("python", path.join(REPO_ROOT, "examples", "python-stack"), 2, (stack) => {
    it("reads the catalog, creates the CPU pod, and keeps the Jupyter password secret", async () => {
      const client = new ComputeClient({ baseUrl: stack.e2e.emulator.url, apiKey: stack.e2e.emulator.apiKey, env: {} });
      const [pod, etl] = await Promise.all([client.pods.get(stack.last.podId), client.pods.get(stack.last.etlPodId as string)]);
      await client.close();
      // The program chose the GPU type from get_gpu_types(); the pod runs on that type.
      expect(pod.gpu?.id).toBe(stack.last.gpuTypeId);
      expect(etl.status).toBe("RUNNING");
      expect(etl.gpu).toBeUndefined();
      expect(etl.cpu?.vcpuCount).toBe(2);
      expect(stack.last.etlStatus).toBe("RUNNING");
      // The plugin returns the generated password as a secret: the program's output is one, and
      // the state holds only its ciphertext.
      const outputs = await stack.e2e.stack.outputs();
      expect(outputs.jupyterPassword.secret).toBe(true);
      const password = pod.env.JUPYTER_PASSWORD;
      expect(password).toEqual(expect.any(String));
      expect(await stack.e2e.stateText()).not.toContain(password);
    });
    billingCases(stack);
  });
});
