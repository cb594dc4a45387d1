/**
 * What the product sends fits the public OpenAPI's request schemas (closed: an unknown member is
 * refused there), except the seed-only members a user sets explicitly — each listed here and in
 * docs/api-contract.md ("Where the two documents differ").
 */
import type { z } from "zod";
import {
  ClusterMounts,
  CreateClusterRequest,
  CreateEndpointRequest,
  CreateGpuConfig,
  CreateNetworkVolumeRequest,
  CreatePodRequest,
  Mounts,
  UpdatePodRequest,
  decodeCommand,
  parseWire,
  Pod,
  POD_OWNER_ENV,
} from "../../sdk";
import { podUpdates, updateRequest, type PodInputs, type PodOutputs } from "../../provider/resources/pod/model";
import { sendJson, useLoopback } from "../helpers/loopback";
import { acceptedMembers, documentExamples, flatten } from "./openapi-bodies";

const serve = useLoopback();

const keysOf = (schema: z.ZodObject) => Object.keys(schema.shape);
const beyond = (ours: string[], publicName: string) => ours.filter((key) => !acceptedMembers(publicName).has(key)).sort();
const nestedAccepted = (publicName: string, member: string) =>
  new Set(Object.keys(flatten(flatten({ $ref: `#/components/schemas/${publicName}` }).properties[member]).properties));

describe("request members beyond the public document are the documented seed-only ones", () => {
  it("pod create and update: only cmd/entrypoint, gpu placement filters and global mounts", () => {
    expect(beyond(keysOf(CreatePodRequest), "CreatePodRequest")).toEqual(["cmd", "entrypoint"]);
    expect(beyond(keysOf(UpdatePodRequest), "UpdatePodRequest")).toEqual(["cmd", "entrypoint"]);
    expect(beyond(keysOf(CreateGpuConfig), "CreateGpuConfig")).toEqual(["minRamPerGpu", "minVcpuCountPerGpu"]);
    expect(keysOf(Mounts).filter((k) => !nestedAccepted("CreatePodRequest", "mounts").has(k))).toEqual(["global"]);
  });

  it("network volume and serverless endpoint creates: none", () => {
    expect(beyond(keysOf(CreateNetworkVolumeRequest), "CreateNetworkVolumeRequest")).toEqual([]);
    expect(beyond(keysOf(CreateEndpointRequest), "CreateEndpointRequest")).toEqual([]);
    const gpu = (CreateEndpointRequest.shape.gpu as unknown as z.ZodOptional<z.ZodObject>).unwrap();
    expect(keysOf(gpu).filter((k) => !nestedAccepted("CreateEndpointRequest", "gpu").has(k))).toEqual([]);
  });
});

describe("a cluster create sends only what the public document accepts", () => {
  it("no member beyond CreateClusterRequest (no registry, no templateId: a template is spread), and mounts as its Mounts", () => {
    const publicMembers = new Set([...acceptedMembers("CreateClusterRequest")]);
    expect(keysOf(CreateClusterRequest).filter((k) => !publicMembers.has(k))).toEqual([]);
    expect(keysOf(ClusterMounts).filter((k) => !nestedAccepted("CreateClusterRequest", "mounts").has(k))).toEqual([]);
  });
});

describe("the command travels as args, which both documents accept", () => {
  const live = (() => {
    const parsed = parseWire(Pod, documentExamples("Pod")[0].body);
    if (!parsed.ok) throw new Error(parsed.violations.join("; "));
    return parsed.value;
  })();
  const base: PodInputs = { name: "trainer", image: "img:1", gpu: { id: "A" }, args: "python train.py" };
  const olds = { ...base, podId: live.id } as unknown as PodOutputs;

  it.each([
    ["exec-form arrays", { args: undefined, cmd: ["python", "serve.py"], entrypoint: ["bash", "-c"] }, '{"entrypoint":["bash","-c"],"cmd":["python","serve.py"]}'],
    ["a shell string", { args: "python serve.py --port 8000" }, "python serve.py --port 8000"],
    ["no command at all", { args: undefined }, ""],
  ])("an update of %s sends args, never cmd/entrypoint", (_label, change, args) => {
    const news: PodInputs = { ...base, ...change };
    const patch = updateRequest(olds, news, podUpdates(olds, news), live);
    expect(patch).toEqual({ args });
    expect(Object.keys(patch).every((key) => acceptedMembers("UpdatePodRequest").has(key))).toBe(true);
  });

  it("an update of everything updatable stays within the public UpdatePodRequest", () => {
    const news: PodInputs = {
      ...base,
      name: "renamed",
      image: "img:2",
      disk: 30,
      ports: ["8888/http"],
      registry: "cred-1",
      env: { A: "1" },
      locked: true,
      globalNetworking: true,
      cmd: ["python", "serve.py"],
    };
    const patch = updateRequest(olds, news, podUpdates(olds, news), live);
    expect(Object.keys(patch).sort()).toEqual(["args", "disk", "env", "globalNetworking", "image", "locked", "name", "ports", "registry"]);
    expect(Object.keys(patch).filter((key) => !acceptedMembers("UpdatePodRequest").has(key))).toEqual([]);
  });

  it("a new template goes with every container setting the program declares, which must win over the template's", () => {
    // The live pod: the old template's key, what the service injected, the owner mark, the program's A.
    const running = { ...live, env: { OLD_TEMPLATE_KEY: "x", PUBLIC_KEY: "ssh-ed25519 AAAA", [POD_OWNER_ENV]: "mark", A: "1" } };
    const before = { ...olds, ports: ["80/http"], env: { A: "1" } } as PodOutputs;
    // The same change stops declaring ports: they are left to the template, not cleared.
    const news: PodInputs = { ...base, templateId: "tpl-2", env: { A: "1" } };
    const patch = updateRequest(before, news, podUpdates(before, news), running);
    // Not sent: what the program leaves to the template (disk, ports, registry).
    expect(Object.keys(patch).sort()).toEqual(["args", "env", "image", "templateId"]);
    expect(patch).toMatchObject({ templateId: "tpl-2", image: "img:1", args: "python train.py" });
    // The old template's env goes (the new one's is merged under this map by the service).
    expect(patch.env).toEqual({ PUBLIC_KEY: "ssh-ed25519 AAAA", [POD_OWNER_ENV]: "mark", A: "1" });
    expect(Object.keys(patch).filter((key) => !acceptedMembers("UpdatePodRequest").has(key))).toEqual([]);
  });

  it("a create written with cmd/entrypoint is sent with the same command as args", async () => {
    const { server, client } = await serve((_req, res) => sendJson(res, 201, documentExamples("Pod")[0].body));
    await client.pods.create({ name: "trainer", image: "img", gpu: { id: "A" }, entrypoint: ["bash", "-c"], cmd: ["python serve.py"] });
    const sent = JSON.parse(server.requests[0].body);
    expect(sent).not.toHaveProperty("cmd");
    expect(sent).not.toHaveProperty("entrypoint");
    expect(decodeCommand(sent.args)).toEqual({ entrypoint: ["bash", "-c"], cmd: ["python serve.py"] });
    expect(Object.keys(sent).filter((key) => !acceptedMembers("CreatePodRequest").has(key))).toEqual([]);
  });
});
