import { ValidationError, createPodViolations, createSandboxRequestViolations, globalNetworkingRefusal } from "../../sdk";
import { reservedEnvViolations, reservedLabelViolations, updatePodViolations } from "../../sdk/validate";
import { useLoopback } from "../helpers/loopback";

const serve = useLoopback();

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
    const { server, client } = await serve((_req, res) => res.end("{}"));
    const error = await client.pods.create({ name: "", image: "a", gpu: { id: "A", count: 0 } }).catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).violations).toEqual(["name: must be at least 1 character(s) long", "gpu.count: must be >= 1"]);
    expect(server.requests).toHaveLength(0);
  });
});

describe("rules judged from the request alone (checked at preview)", () => {
  const cpuPod = { name: "c", image: "alpine", cpu: { id: "cpu3c", vcpuCount: 4 } };

  it("refuses global networking on a CPU pod, naming globalNetworking and the rule", () => {
    expect(createPodViolations({ ...cpuPod, globalNetworking: true })).toEqual([
      "globalNetworking: requires an NVIDIA GPU: a CPU pod cannot have global networking",
    ]);
    expect(createPodViolations({ ...cpuPod, globalNetworking: false })).toEqual([]);
  });

  it("leaves global networking on a GPU pod to the catalog: the GPU type id is not judged by its spelling", () => {
    expect(createPodViolations({ ...valid, globalNetworking: true })).toEqual([]);
    expect(createPodViolations({ ...valid, gpu: { id: "AMD Instinct MI300X OAM" }, globalNetworking: true })).toEqual([]);
  });

  it("states the whole global networking rule once, for callers that hold the catalog", () => {
    expect(globalNetworkingRefusal({ gpu: false })).toMatch(/requires an NVIDIA GPU/);
    expect(globalNetworkingRefusal({ gpu: true, manufacturer: "AMD" })).toBe("requires an NVIDIA GPU, not AMD");
    expect(globalNetworkingRefusal({ gpu: true, manufacturer: "NVIDIA", dataCenterGlobalNetwork: false })).toMatch(/data center with global networking/);
    expect(globalNetworkingRefusal({ gpu: true, manufacturer: "NVIDIA", dataCenterGlobalNetwork: true })).toBeUndefined();
    expect(globalNetworkingRefusal({ gpu: true })).toBeUndefined();
  });

  it("refuses a CPU pod on COMMUNITY cloud (CPU pods run on SECURE only), not a GPU pod", () => {
    expect(createPodViolations({ ...cpuPod, cloud: "COMMUNITY" })).toEqual(["cloud: must be SECURE on a CPU pod (CPU pods run on SECURE cloud only)"]);
    expect(createPodViolations({ ...cpuPod, cloud: "SECURE" })).toEqual([]);
    expect(createPodViolations({ ...valid, cloud: "COMMUNITY" })).toEqual([]);
  });

  it("reports shape and cross-field violations in one pass", () => {
    const violations = createPodViolations({
      name: "",
      image: "alpine",
      disk: 0,
      cpu: { id: "cpu3c", vcpuCount: 4 },
      cloud: "COMMUNITY",
      globalNetworking: true,
      args: "python train.py",
      cmd: ["python", "serve.py"],
    });
    expect(violations).toEqual([
      "name: must be at least 1 character(s) long",
      "disk: must be >= 1",
      "args: must describe the same command as cmd/entrypoint when both are sent",
      "globalNetworking: requires an NVIDIA GPU: a CPU pod cannot have global networking",
      "cloud: must be SECURE on a CPU pod (CPU pods run on SECURE cloud only)",
    ]);
  });

  it("does not judge a cross-field rule on a member that broke its shape", () => {
    // gpu is invalid, so "exactly one of gpu or cpu" cannot be told; templateId is set (if badly).
    expect(createPodViolations({ name: "p", gpu: { id: "A", count: 0 }, templateId: "" })).toEqual([
      "gpu.count: must be >= 1",
      "templateId: must be at least 1 character(s) long",
    ]);
    // cpu is invalid, so whether this is a CPU pod is not judged either.
    expect(createPodViolations({ name: "p", image: "a", cpu: { id: "cpu3c", vcpuCount: 3 }, globalNetworking: true })).toEqual([
      "cpu.vcpuCount: must be a power of two",
    ]);
  });

  it("reports a pod update's shape and cross-field violations together", () => {
    expect(updatePodViolations({ disk: 0, mounts: { network: [] }, args: "a", cmd: ["b"] })).toEqual([
      "disk: must be >= 1",
      "mounts.network: an empty list is not allowed in an update",
      "args: must describe the same command as cmd/entrypoint when both are sent",
    ]);
  });

  it("reports a sandbox's missing image together with its shape violations, as the service does", () => {
    expect(createSandboxRequestViolations({ name: "s", compute: { vcpuCount: 0, memoryInGb: 1, containerDiskInGb: 1 } })).toEqual([
      "compute.vcpuCount: must be >= 1",
      "image: is required unless templateId is set",
    ]);
    expect(createSandboxRequestViolations({ name: "s", templateId: "", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 } })).toEqual([
      "templateId: must be at least 1 character(s) long",
    ]);
  });
});

describe("provider-side rules: what the provider adds to a resource", () => {
  const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]));

  it("keeps a sandbox's labels to 63 and off the owner label's key (the provider adds it)", () => {
    expect(reservedLabelViolations(labels(63))).toEqual([]);
    expect(reservedLabelViolations(labels(64))).toEqual([
      "labels: must have at most 63 labels (the provider adds pulumi-compute/owner, and a sandbox carries at most 64)",
    ]);
    expect(reservedLabelViolations({ "pulumi-compute/owner": "mine", team: "ml" })).toEqual([
      "labels.pulumi-compute/owner: is reserved: the provider writes the sandbox's owner mark there",
    ]);
    expect(reservedLabelViolations(undefined)).toEqual([]);
    // 64 labels stay valid on the wire: SDK users send their labels as they are.
    expect(createSandboxRequestViolations({ name: "s", image: "i", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 }, labels: labels(64) })).toEqual([]);
  });

  it("keeps a pod's env off the owner mark's variable", () => {
    expect(reservedEnvViolations({ PULUMI_COMPUTE_OWNER: "x", A: "1" })).toEqual([
      "env.PULUMI_COMPUTE_OWNER: is reserved: the provider writes the pod's owner mark there",
    ]);
    expect(reservedEnvViolations({ A: "1" })).toEqual([]);
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
