/**
 * The SDK reads every answer the public OpenAPI allows (its examples and bodies generated from
 * its schemas, test/sdk/openapi-bodies.ts), keeps members it does not know, and reads `null`
 * optional members as absent. Plus the per-field decisions for values the service may add later.
 */
import type { z } from "zod";
import {
  BILLING_RESPONSES,
  Cluster,
  ListClustersResponse,
  CpuType,
  DataCenter,
  Endpoint,
  GpuType,
  ListCpuTypesResponse,
  ListDataCentersResponse,
  ListEndpointsResponse,
  ListGpuTypesResponse,
  ListNetworkVolumesResponse,
  ListPodsResponse,
  ListTemplatesResponse,
  NetworkVolume,
  Pod,
  SshKeys,
  Template,
  parseWire,
} from "../../sdk";
import { rankCandidates } from "../../sdk/placement";
import { factsFromPod } from "../../provider/resources/pod/model";
import { GPU, podResponse } from "../helpers/fixtures";
import { UNKNOWN_MEMBER, at, bodiesOf, documentExamples, responseSchemaOf } from "./openapi-bodies";

/** Each response schema of the document the SDK reads, with the SDK schema that reads it. */
const READERS: Record<string, z.ZodType> = {
  Pod,
  ListPodsResponse,
  NetworkVolume,
  ListNetworkVolumesResponse,
  Endpoint,
  ListEndpointsResponse,
  GpuType,
  ListGpuTypesResponse,
  CpuType,
  ListCpuTypesResponse,
  DataCenter,
  ListDataCentersResponse,
  Template,
  ListTemplatesResponse,
  SshKeys,
  Cluster,
  ListClustersResponse,
  ...BILLING_RESPONSES,
};

/** Every operation of the document the SDK calls (sdk/resources), with a JSON answer. */
const SDK_OPERATIONS = [
  ["POST", "/v2/pods"],
  ["GET", "/v2/pods"],
  ["GET", "/v2/pods/{id}"],
  ["PATCH", "/v2/pods/{id}"],
  ["POST", "/v2/pods/{id}/action"],
  ["POST", "/v2/serverless"],
  ["GET", "/v2/serverless"],
  ["GET", "/v2/serverless/{id}"],
  ["POST", "/v2/network-volumes"],
  ["GET", "/v2/network-volumes"],
  ["GET", "/v2/network-volumes/{id}"],
  ["GET", "/v2/catalog/gpus"],
  ["GET", "/v2/catalog/cpus"],
  ["GET", "/v2/catalog/datacenters"],
  ["GET", "/v2/catalog/templates"],
  ["GET", "/v2/account/ssh-keys"],
  ["PUT", "/v2/account/ssh-keys"],
  ["POST", "/v2/clusters"],
  ["GET", "/v2/clusters"],
  ["GET", "/v2/clusters/{id}"],
  ["PATCH", "/v2/clusters/{id}"],
  ["GET", "/v2/clusters/{id}/pods"],
  ["GET", "/v2/billing"],
  ["GET", "/v2/billing/pods"],
  ["GET", "/v2/billing/serverless"],
  ["GET", "/v2/billing/endpoints"],
  ["GET", "/v2/billing/network-volumes"],
  ["GET", "/v2/billing/clusters"],
] as const;

/** The list member of each list response (its items must all survive). */
const LIST_MEMBER: Record<string, string> = {
  ListPodsResponse: "pods",
  ListNetworkVolumesResponse: "networkVolumes",
  ListEndpointsResponse: "endpoints",
  ListGpuTypesResponse: "gpus",
  ListCpuTypesResponse: "cpus",
  ListDataCentersResponse: "dataCenters",
  ListTemplatesResponse: "templates",
  ListClustersResponse: "clusters",
  ...Object.fromEntries(Object.keys(BILLING_RESPONSES).map((name) => [name, "records"])),
};

describe("the SDK reads what the public OpenAPI allows", () => {
  it("has a reader for the answer of every operation it calls", () => {
    const schemas = SDK_OPERATIONS.map(([method, route]) => responseSchemaOf(method, route));
    expect(schemas.every((name) => name !== undefined && name in READERS)).toBe(true);
  });

  it("generates bodies from the document: its examples and every enum value and variant", () => {
    expect(documentExamples("Pod").length).toBeGreaterThan(0);
    // Pod status has six values, endpoint scaling two variants: each is a body of its own.
    expect(bodiesOf("Pod").filter((b) => b.label.includes("status=#")).length).toBe(5);
    expect(bodiesOf("Endpoint").some((b) => b.label.includes("scaling=#1"))).toBe(true);
  });

  const cases = Object.entries(READERS).flatMap(([name, reader]) => bodiesOf(name).map((b) => ({ name, reader, ...b })));

  it.each(cases.map((c) => [`${c.name}: ${c.label}`, c] as const))("reads %s", (_label, c) => {
    const parsed = parseWire(c.reader, c.body);
    // Read, not refused (the body is printed with the violations when it is).
    expect(parsed.ok ? [] : [...parsed.violations, JSON.stringify(c.body)]).toEqual([]);
    if (!parsed.ok) return;
    const value = parsed.value as Record<string, unknown>;

    const member = LIST_MEMBER[c.name];
    if (member) {
      // A list keeps every item the document allows: nothing set aside.
      expect(value.setAside).toEqual([]);
      expect((value[member] as unknown[]).length).toBe((c.body[member] as unknown[]).length);
    }
    for (const path of c.unknownAt) expect({ path, kept: at(value, path)?.[UNKNOWN_MEMBER] }).toEqual({ path, kept: c.body && at(c.body, path)[UNKNOWN_MEMBER] });
    for (const path of c.optionalNulls) expect({ path, value: at(value, path) }).not.toEqual({ path, value: null });
  });
});

describe("what the product derives from an answer in either shape", () => {
  const publicPod = documentExamples("Pod")[0].body;

  it("derives cmd/entrypoint from args and defaults gpu.count when the service leaves them out", () => {
    const parsed = parseWire(Pod, { ...publicPod, args: '{"entrypoint":["bash","-c"],"cmd":["python serve.py"]}', gpu: { id: GPU.rtx4090 } });
    expect(parsed.ok && parsed.value).toMatchObject({
      entrypoint: ["bash", "-c"],
      cmd: ["python serve.py"],
      gpu: { id: GPU.rtx4090, count: 1 },
    });
  });

  it("records the same provider facts, with null for what the public shape does not report", () => {
    const seed = parseWire(Pod, podResponse());
    const pub = parseWire(Pod, publicPod);
    if (!seed.ok || !pub.ok) throw new Error("both pods must read");
    const seedFacts = factsFromPod(seed.value);
    const publicFacts = factsFromPod(pub.value);
    expect(Object.keys(publicFacts).sort()).toEqual(Object.keys(seedFacts).sort());
    expect(publicFacts).toMatchObject({ vcpuCount: null, memoryGb: null, gpuCount: 1, argsApplied: "", publicPorts: [] });
    expect(seedFacts).toMatchObject({ vcpuCount: 8, memoryGb: 64 });
  });

  it("keeps a runtime port mapping without its private port (every member is optional in the public document)", () => {
    const runtime = { ports: [{ public: 43210, type: "tcp", ip: "45.23.12.1" }, { private: 8888, public: null, type: "http", ip: null }, {}] };
    const parsed = parseWire(Pod, { ...publicPod, status: "RUNNING", runtime });
    if (!parsed.ok) throw new Error(parsed.violations.join("; "));
    expect(factsFromPod(parsed.value).publicPorts).toEqual([
      { privatePort: null, publicPort: 43210, ip: "45.23.12.1", type: "tcp" },
      { privatePort: 8888, publicPort: null, ip: null, type: "http" },
      { privatePort: null, publicPort: null, ip: null, type: "" },
    ]);
  });
});

describe("values the service may add later", () => {
  it("sets aside a pod with an unknown status instead of failing the whole list, and says why", () => {
    const parsed = parseWire(ListPodsResponse, { pods: [podResponse({ id: "a" }), podResponse({ id: "b", status: "HIBERNATING" }), podResponse({ id: "c" })] });
    if (!parsed.ok) throw new Error(parsed.violations.join("; "));
    expect(parsed.value.pods.map((p) => p.id)).toEqual(["a", "c"]);
    expect(parsed.value.setAside).toEqual([
      { index: 1, id: "b", name: "trainer", violations: [expect.stringMatching(/^pods\[1\]\.status: must be one of "PROVISIONING"/)] },
    ]);
  });

  it("names the missing field when a pod lacks something the product needs", () => {
    const { id: _id, ...noId } = podResponse();
    const parsed = parseWire(Pod, noId);
    expect(parsed.ok ? [] : parsed.violations).toEqual(["id: is required"]);
  });

  it("drops an action it cannot invoke and reads an unknown cloud as absent", () => {
    const parsed = parseWire(Pod, podResponse({ actions: ["stop", "hibernate"], cloud: "EDGE" }));
    expect(parsed.ok && { actions: parsed.value.actions, cloud: parsed.value.cloud }).toEqual({ actions: ["stop"], cloud: undefined });
  });

  it("keeps a data center whose GPU has an unknown level, and placement treats that GPU as unlisted", () => {
    const parsed = parseWire(ListDataCentersResponse, {
      dataCenters: [
        {
          id: "EU-1",
          region: "ATLANTIS",
          gpuAvailability: [
            { id: "A", availability: "ABUNDANT" },
            { id: "B", availability: "LOW" },
          ],
        },
      ],
    });
    if (!parsed.ok) throw new Error(parsed.violations.join("; "));
    const [dc] = parsed.value.dataCenters;
    expect(dc).toMatchObject({ id: "EU-1", name: "EU-1", region: "UNKNOWN", globalNetwork: false, gpuAvailability: [{ id: "B", availability: "LOW" }] });
    const candidates = rankCandidates({ name: "p", image: "i", gpu: { id: "A" } }, { gpuTypeIds: ["A", "B"] }, [dc], []);
    expect(candidates).toEqual([{ gpuTypeId: "B", dataCenterId: "EU-1" }]);
  });

  it("reads an unknown GPU manufacturer as UNKNOWN and an unknown overall level as absent", () => {
    const gpu = documentExamples("GpuType")[0].body;
    const parsed = parseWire(GpuType, { ...gpu, manufacturer: "INTEL", availability: "PLENTY" });
    expect(parsed.ok && { manufacturer: parsed.value.manufacturer, availability: parsed.value.availability }).toEqual({ manufacturer: "UNKNOWN", availability: undefined });
  });

  it("lists every serverless endpoint even when one has no image and nulls where members are optional", () => {
    const [endpoint] = documentExamples("ListEndpointsResponse")[0].body.endpoints;
    const { image: _image, ...noImage } = endpoint;
    const parsed = parseWire(ListEndpointsResponse, { endpoints: [endpoint, { ...noImage, id: "ep-2", gpu: null, type: null, disk: null, env: null }] });
    if (!parsed.ok) throw new Error(parsed.violations.join("; "));
    expect(parsed.value.endpoints.map((e) => e.id)).toEqual([endpoint.id, "ep-2"]);
    const { image, gpu, type, disk, env } = parsed.value.endpoints[1];
    expect([image, gpu, type, disk, env]).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });
});
