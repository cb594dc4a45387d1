/**
 * The data-source functions, stated once: catalog, templates, sandboxes by label, a Hub
 * repository. `FUNCTIONS` holds each one's description, arguments, SDK call and result (the
 * contract's zod schemas the SDK reads the answer with); it feeds the TypeScript functions
 * below, the native plugin's Invoke (native/invoke.ts) and the package schema's function
 * shapes (native/function-shapes.ts). A TypeScript function runs in the program's own process
 * with the same settings as the resources (`compute:baseUrl`, `compute:apiKey`,
 * `compute:teamId`, then COMPUTE_*); its description is its `doc` here.
 *
 * A Pulumi function returns an object, and Pulumi YAML reads one member of it
 * (`fn::invoke: {function: compute:index:getGpuTypes, return: gpuTypes}`), so a function whose
 * TypeScript result is a list names the member that holds it through Invoke (`listMember`).
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { CpuType, DataCenter, GpuType, HubRepo, Sandbox, SandboxState, Template, stringMap } from "../contract";
import { fromStackConfig, type ComputeClient } from "../sdk";
import { functionFailure } from "./runtime/errors";
import { clientFor } from "./runtime/settings";

/** One function: the SDK's answer to `call` is what `result` reads (a list of them with `listMember`). */
export interface DataSource<A extends z.ZodObject = z.ZodObject, R extends z.ZodType = z.ZodType, L extends string | undefined = string | undefined> {
  readonly doc: string;
  /** The arguments, by name (`getHubRepo`'s one positional argument is `ref`). */
  readonly args: A;
  /** The result, or each item of a list result. */
  readonly result: R;
  /** A list result: the member of Invoke's answer that holds it. */
  readonly listMember?: L;
  readonly call: (client: ComputeClient, args: z.output<A>) => Promise<L extends string ? z.output<R>[] : z.output<R>>;
}

const dataSource = <A extends z.ZodObject, R extends z.ZodType, L extends string | undefined = undefined>(spec: DataSource<A, R, L>) => spec;

const noArgs = z.object({});

/** Keyed by the TypeScript function's name; the schema token is `compute:index:<name>`. */
export const FUNCTIONS = {
  getGpuTypes: dataSource({
    doc: "GPU types with pod availability and per-GPU CUDA versions.",
    args: noArgs,
    result: GpuType,
    listMember: "gpuTypes",
    call: (client) => client.catalog.gpuTypes({ includeAvailability: true }),
  }),
  getDataCenters: dataSource({
    doc: "Data centers with per-GPU availability, optionally in one region.",
    args: z.object({ region: z.string().optional() }),
    result: DataCenter,
    listMember: "dataCenters",
    call: (client, args) => client.catalog.dataCenters({ regions: args.region, includeGpuAvailability: true }),
  }),
  getCpuFlavors: dataSource({
    doc: "CPU flavors with their vCPU range and prices.",
    args: noArgs,
    result: CpuType,
    listMember: "cpuFlavors",
    call: (client) => client.catalog.cpuFlavors(),
  }),
  getTemplates: dataSource({
    doc: "The templates the account may start pods from (its own and public).",
    args: noArgs,
    result: Template,
    listMember: "templates",
    call: (client) => client.catalog.templates(),
  }),
  getSandboxes: dataSource({
    doc: "Live sandboxes carrying every given label (and in the given state).",
    args: z.object({ labels: stringMap.optional(), state: SandboxState.optional() }),
    result: Sandbox,
    listMember: "sandboxes",
    call: (client, args) => client.sandboxes.list({ labels: args.labels, state: args.state }),
  }),
  getHubRepo: dataSource({
    doc: "A Hub repository by id or `owner/name`.",
    args: z.object({ ref: z.string() }),
    result: HubRepo,
    call: (client, args) => client.hub.get(args.ref),
  }),
} as const;

export type FunctionName = keyof typeof FUNCTIONS;

function programClient(): ComputeClient {
  // runtime.getConfig reads the decrypted stack configuration without turning every result
  // derived from the key into a secret output. Required here, not imported above: the native
  // plugin loads this module for its table and has no use for the Pulumi program SDK.
  const { runtime } = require("@pulumi/pulumi") as typeof pulumi;
  return clientFor(fromStackConfig({ get: (key) => runtime.getConfig(key) }));
}

/**
 * A function called from a TypeScript program. Its failure is a `RunError`: the Node.js SDK
 * then prints the message alone, without the program's source and stack it prints for others.
 */
function programCall<N extends FunctionName>(name: N, args: Parameters<(typeof FUNCTIONS)[N]["call"]>[1]): ReturnType<(typeof FUNCTIONS)[N]["call"]> {
  const fn = FUNCTIONS[name] as unknown as DataSource;
  return fn.call(programClient(), args).catch((error: unknown) => {
    const failure = functionFailure(name, error);
    if (failure === error) throw error;
    const { RunError } = require("@pulumi/pulumi") as typeof pulumi;
    throw new RunError((failure as Error).message);
  }) as ReturnType<(typeof FUNCTIONS)[N]["call"]>;
}

export function getGpuTypes(): Promise<GpuType[]> {
  return programCall("getGpuTypes", {});
}

export function getDataCenters(args: { region?: string } = {}): Promise<DataCenter[]> {
  return programCall("getDataCenters", args);
}

export function getCpuFlavors(): Promise<CpuType[]> {
  return programCall("getCpuFlavors", {});
}

export function getTemplates(): Promise<Template[]> {
  return programCall("getTemplates", {});
}

export function getSandboxes(args: { labels?: Record<string, string>; state?: SandboxState } = {}): Promise<Sandbox[]> {
  return programCall("getSandboxes", args);
}

export function getHubRepo(ref: string): Promise<HubRepo> {
  return programCall("getHubRepo", { ref });
}
