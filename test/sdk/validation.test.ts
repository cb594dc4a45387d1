import { ComputeClient, ValidationError, createPodViolations, createSandboxRequestViolations } from "../../sdk";
import { startLoopback, TEST_KEY } from "../helpers/loopback";

const valid = { name: "trainer", image: "pytorch:2.4", gpu: { id: "NVIDIA_A100_80GB" } };

describe("pod create validation (client side)", () => {
  it("accepts a minimal valid GPU request and a minimal CPU request", () => {
    expect(createPodViolations(valid)).toEqual([]);
    expect(createPodViolations({ name: "cpu", image: "alpine", cpu: { id: "cpu3c", vcpuCount: 4 } })).toEqual([]);
  });

  it("reports every 422 violation at once, each naming its field", () => {
    const violations = createPodViolations({
      image: "x",
      bogus: true,
      disk: 0,
      ports: ["8888/http", "22", "70000/tcp"],
      gpu: { id: "A", count: 0, allowedCudaVersions: ["12"], minRamPerGpu: 0, extra: 1 },
      mounts: { network: [{ volumeId: "v1", path: "/a" }, { volumeId: "v2", path: "/b" }], global: [{}], other: {} },
    });
    expect(violations).toEqual(
      expect.arrayContaining([
        "name: is required",
        "bogus: unknown property",
        "disk: must be >= 1",
        expect.stringMatching(/^ports\[1\]: must be "<port>\/<protocol>"/),
        expect.stringMatching(/^ports\[2\]: must be "<port>\/<protocol>"/),
        "gpu.count: must be >= 1",
        expect.stringMatching(/^gpu\.allowedCudaVersions\[0\]: must be a "major\.minor" version/),
        "gpu.minRamPerGpu: must be >= 1",
        "gpu.extra: unknown property",
        "mounts.network: must have at most 1 item(s)",
        "mounts.global[0].volumeId: is required",
        "mounts.other: unknown property",
      ]),
    );
    expect(violations).toHaveLength(12);
  });

  it("requires a power-of-two vCPU count of at least 2 on CPU pods", () => {
    expect(createPodViolations({ name: "c", image: "a", cpu: { id: "cpu3c", vcpuCount: 6 } })).toEqual(["cpu.vcpuCount: must be a power of two"]);
    expect(createPodViolations({ name: "c", image: "a", cpu: { id: "cpu3c", vcpuCount: 1 } })).toEqual(
      expect.arrayContaining(["cpu.vcpuCount: must be >= 2"]),
    );
  });

  it("reports the 400 cross-field rules together", () => {
    const violations = createPodViolations({
      name: "p",
      gpu: { id: "A", allowedCudaVersions: ["12.4"], minCudaVersion: "12.1" },
      cpu: { id: "cpu3c", vcpuCount: 2 },
      mounts: { persistent: { size: 20, path: "/workspace" }, network: [{ volumeId: "v", path: "/data" }] },
      args: "python train.py",
      cmd: ["python", "serve.py"],
    });
    expect(violations).toEqual([
      "gpu, cpu: exactly one of gpu or cpu must be set, not both",
      "image: is required unless templateId is set",
      "mounts.persistent: cannot be combined with network or global mounts",
      "mounts.persistent: is not allowed on a CPU pod",
      "gpu.minCudaVersion: cannot be combined with a non-empty gpu.allowedCudaVersions",
      "args: must describe the same command as cmd/entrypoint when both are sent",
    ]);
  });

  it("accepts args with cmd when both describe the same command, and an explicit empty CUDA list with a floor", () => {
    expect(createPodViolations({ ...valid, args: "python 'train it.py'", cmd: ["python", "train it.py"] })).toEqual([]);
    expect(createPodViolations({ ...valid, gpu: { id: "A", allowedCudaVersions: [], minCudaVersion: "12.1" } })).toEqual([]);
  });

  it("requires exactly one of gpu or cpu", () => {
    expect(createPodViolations({ name: "p", image: "a" })).toEqual(["gpu, cpu: exactly one of gpu or cpu must be set"]);
  });

  it("rejects a body over 102400 bytes", () => {
    const violations = createPodViolations({ ...valid, env: { BIG: "x".repeat(103_000) } });
    expect(violations).toEqual([expect.stringMatching(/^\(body\): must be at most 102400 bytes as JSON \(is \d+\)$/)]);
  });

  it("refuses to send an invalid create: no request reaches the service", async () => {
    const server = await startLoopback((_req, res) => res.end("{}"));
    const client = new ComputeClient({ baseUrl: server.url, apiKey: TEST_KEY, env: {} });
    try {
      const error = await client.pods.create({ name: "", image: "a", gpu: { id: "A", count: 0 } }).catch((e) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).violations).toEqual(["name: must be at least 1 character(s) long", "gpu.count: must be >= 1"]);
      expect(server.requests).toHaveLength(0);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe("sandbox create validation", () => {
  it("reports compute, egress, label and lifetime violations at once", () => {
    const violations = createSandboxRequestViolations({
      name: "s",
      compute: { vcpuCount: 0, memoryInGb: 1 },
      egressPolicy: { mode: "ALLOW_LIST", allow: [] },
      labels: { "bad key!": "x" },
      maxLifetimeSeconds: 10,
    });
    expect(violations).toEqual(
      expect.arrayContaining([
        "compute.vcpuCount: must be >= 1",
        "compute.containerDiskInGb: is required",
        "egressPolicy.allow: must not be empty when mode is ALLOW_LIST",
        expect.stringMatching(/^labels\.bad key!: key must be 1-63/),
        "maxLifetimeSeconds: must be >= 300",
      ]),
    );
    expect(createSandboxRequestViolations({ name: "s", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 } })).toEqual([
      "image: is required unless templateId is set",
    ]);
  });
});
