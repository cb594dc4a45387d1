/**
 * A gRPC client of the native plugin built from the same stubs the engine's protocol ships in
 * `@pulumi/pulumi/proto`, and a fake engine that records the `Log` calls the plugin makes.
 */
import * as grpc from "@grpc/grpc-js";
import * as enginerpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import type * as engine from "@pulumi/pulumi/proto/engine_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import type * as plug from "@pulumi/pulumi/proto/plugin_pb";
import * as prov from "@pulumi/pulumi/proto/provider_pb";
import * as statuspb from "@pulumi/pulumi/proto/status_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

export const SIG = "4dabf18193072939515e22adb298388d";
export const SECRET = "1b47061264138c4ac30d75fd1eb44270";
export const UNKNOWN_STRING = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
export const UNKNOWN_BOOL = "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7";
export const UNKNOWN_NUMBER = "3eeb2bf0-c639-47a8-9e75-3b44932eb421";

export const secret = (value: unknown) => ({ [SIG]: SECRET, value });
export const struct = (value: Record<string, unknown>) => Struct.fromJavaScript(value as Parameters<typeof Struct.fromJavaScript>[0]);
export const js = (value: Struct | undefined) => (value?.toJavaScript() ?? {}) as Record<string, any>;

type Callback<Res> = (error: grpc.ServiceError | null, response: Res) => void;

export function connect(port: number) {
  const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  // The stubs' methods are overloaded (metadata, options): name the request and response types.
  const call =
    <Req, Res>(method: (request: Req, callback: Callback<Res>) => unknown) =>
    (request: Req) =>
      new Promise<Res>((resolve, reject) => method.call(client, request, (error, response) => (error ? reject(error) : resolve(response))));
  return {
    client,
    handshake: call<prov.ProviderHandshakeRequest, prov.ProviderHandshakeResponse>(client.handshake),
    getPluginInfo: call<Empty, plug.PluginInfo>(client.getPluginInfo),
    getSchema: call<prov.GetSchemaRequest, prov.GetSchemaResponse>(client.getSchema),
    checkConfig: call<prov.CheckRequest, prov.CheckResponse>(client.checkConfig),
    diffConfig: call<prov.DiffRequest, prov.DiffResponse>(client.diffConfig),
    configure: call<prov.ConfigureRequest, prov.ConfigureResponse>(client.configure),
    check: call<prov.CheckRequest, prov.CheckResponse>(client.check),
    diff: call<prov.DiffRequest, prov.DiffResponse>(client.diff),
    create: call<prov.CreateRequest, prov.CreateResponse>(client.create),
    read: call<prov.ReadRequest, prov.ReadResponse>(client.read),
    update: call<prov.UpdateRequest, prov.UpdateResponse>(client.update),
    delete: call<prov.DeleteRequest, Empty>(client.delete),
    invoke: call<prov.InvokeRequest, prov.InvokeResponse>(client.invoke),
    cancel: call<Empty, Empty>(client.cancel),
    close: () => client.close(),
  };
}

export type Client = ReturnType<typeof connect>;

/** The typed details of an error as the engine's `parseError` reads them. */
export function errorDetails(error: grpc.ServiceError): Array<{ type: string; value: Uint8Array }> {
  const raw = error.metadata?.get("grpc-status-details-bin")[0];
  if (!raw) return [];
  const status = statuspb.Status.deserializeBinary(raw instanceof Buffer ? new Uint8Array(raw) : Buffer.from(raw as string, "binary"));
  return status.getDetailsList().map((any) => ({ type: any.getTypeName(), value: any.getValue_asU8() }));
}

export function initFailure(error: grpc.ServiceError): prov.ErrorResourceInitFailed | undefined {
  const detail = errorDetails(error).find((d) => d.type === "pulumirpc.ErrorResourceInitFailed");
  return detail && prov.ErrorResourceInitFailed.deserializeBinary(detail.value);
}

/** An engine that only takes `Log` calls, keeping them. */
export async function fakeEngine(): Promise<{ address: string; logs: Array<{ urn: string; message: string }>; close(): Promise<void> }> {
  const logs: Array<{ urn: string; message: string }> = [];
  const server = new grpc.Server();
  server.addService(enginerpc.EngineService, {
    log: (call: grpc.ServerUnaryCall<engine.LogRequest, Empty>, callback: grpc.sendUnaryData<Empty>) => {
      logs.push({ urn: call.request.getUrn(), message: call.request.getMessage() });
      callback(null, new Empty());
    },
  } as unknown as enginerpc.IEngineServer);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { address: `127.0.0.1:${port}`, logs, close: () => new Promise<void>((done) => server.tryShutdown(() => done())) };
}

export { Empty, prov };
