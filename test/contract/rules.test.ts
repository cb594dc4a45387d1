/** Rules of contract/ that the SDK, the emulator and the CLI share and that no other suite states directly. */
import {
  CreateNetworkVolumeRequest,
  CreatePodRequest,
  CreateTemplateRequest,
  LABEL_KEY,
  LABEL_KEY_RULE,
  UpdateNetworkVolumeRequest,
  UpdatePodRequest,
  isPowerOfTwo,
  parseWire,
  templateUseViolation,
} from "../../contract";

const violations = (schema: Parameters<typeof parseWire>[0], input: unknown) => {
  const parsed = parseWire(schema, input);
  return parsed.ok ? [] : parsed.violations;
};

describe("isPowerOfTwo", () => {
  it("accepts 1, 2, 4, … and nothing else", () => {
    expect([1, 2, 4, 8, 64, 1024].every(isPowerOfTwo)).toBe(true);
    expect([0, -2, 3, 6, 12, 2.5].some(isPowerOfTwo)).toBe(false);
  });
});

describe("templateUseViolation", () => {
  const podTemplate = { id: "tpl_pod", serverless: false };
  const serverlessTemplate = { id: "tpl_worker", serverless: true };

  it("refuses a serverless template for a pod or a sandbox, naming templateId", () => {
    expect(templateUseViolation(serverlessTemplate, "pod")).toBe('templateId: "tpl_worker" is a serverless template; pods need a pod template');
    expect(templateUseViolation(serverlessTemplate, "sandbox")).toBe('templateId: "tpl_worker" is a serverless template; sandboxes need a pod template');
    expect(templateUseViolation(podTemplate, "pod")).toBeUndefined();
    expect(templateUseViolation(podTemplate, "sandbox")).toBeUndefined();
  });

  it("refuses any other template for an endpoint", () => {
    expect(templateUseViolation(podTemplate, "endpoint")).toBe('templateId: "tpl_pod" is a pod template; endpoints need a serverless template');
    expect(templateUseViolation(serverlessTemplate, "endpoint")).toBeUndefined();
  });
});

describe("container fields", () => {
  const bad = { image: 1, disk: 0, ports: ["80/udp"], registry: 2 };

  it("carry the same rules in pod create, pod update and template create", () => {
    const expected = [
      "image: must be a string",
      "disk: must be >= 1",
      'ports[0]: must be "<port>/<protocol>" with port 1-65535 and protocol http or tcp',
      "registry: must be a string",
    ];
    expect(violations(CreatePodRequest, { name: "p", ...bad })).toEqual(expected);
    expect(violations(UpdatePodRequest, bad)).toEqual(expected);
    expect(violations(CreateTemplateRequest, { name: "t", ...bad })).toEqual(expected);
  });

  it("are optional on pods but a template needs its name and image", () => {
    expect(violations(CreatePodRequest, { name: "p" })).toEqual([]);
    expect(violations(CreateTemplateRequest, {})).toEqual(["image: is required", "name: is required"]);
    expect(violations(CreateTemplateRequest, { name: "t", image: "me/app:1", mounts: { network: [] } })).toEqual(["mounts.network: unknown property"]);
  });
});

describe("network volume size", () => {
  it("is 10 to 4096 GB on create and on update", () => {
    const create = { name: "v", dataCenter: "EU-RO-1" };
    expect(violations(CreateNetworkVolumeRequest, { ...create, size: 9 })).toEqual(["size: must be >= 10"]);
    expect(violations(UpdateNetworkVolumeRequest, { size: 4097 })).toEqual(["size: must be <= 4096"]);
    expect(violations(UpdateNetworkVolumeRequest, { size: 4096 })).toEqual([]);
    expect(violations(UpdateNetworkVolumeRequest, {})).toEqual(["(body): must set at least one of name, size"]);
  });
});

describe("label keys", () => {
  it("are 1-63 letters, digits, '-', '_', '.' or '/'", () => {
    expect(["team", "a.b/c-d_e", "x".repeat(63)].every((k) => LABEL_KEY.test(k))).toBe(true);
    expect(["", "has space", "x".repeat(64), "é"].some((k) => LABEL_KEY.test(k))).toBe(false);
    // The rule's words name what the pattern allows (a user reads them in every refusal).
    for (const part of ["1-63", "letters", "digits", "'-'", "'_'", "'.'", "'/'"]) expect(LABEL_KEY_RULE).toContain(part);
  });
});
