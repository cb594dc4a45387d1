/**
 * Errors as the engine reads them (`provider_plugin.go` `parseError`, `createConfigureError`):
 * a status whose details carry a typed message. A partial failure must arrive as
 * `ErrorResourceInitFailed` (the engine then records the resource with its id and properties,
 * so it is never leaked); a plain UNKNOWN error means "the operation's outcome is unknown".
 */
import * as grpc from "@grpc/grpc-js";
import * as prov from "@pulumi/pulumi/proto/provider_pb";
import * as statuspb from "@pulumi/pulumi/proto/status_pb";
import { Any } from "google-protobuf/google/protobuf/any_pb";
import type { Message } from "google-protobuf";
import { PartialFailure } from "../runtime/partial";
import { encode, type Marks } from "./properties";

function withDetail(message: string, detail: Message, typeName: string): grpc.ServiceError {
  const any = new Any();
  any.pack(detail.serializeBinary(), typeName);
  const status = new statuspb.Status();
  status.setCode(grpc.status.UNKNOWN);
  status.setMessage(message);
  status.addDetails(any);
  const metadata = new grpc.Metadata();
  metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  return Object.assign(new Error(message), { code: grpc.status.UNKNOWN, details: message, metadata });
}

/**
 * The gRPC error for anything a handler threw. `marks` says which of a partial failure's
 * properties are secret (its properties are outputs, so they are wrapped like outputs).
 */
export function toGrpcError(error: unknown, marks?: Marks): grpc.ServiceError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof PartialFailure) {
    const detail = new prov.ErrorResourceInitFailed();
    detail.setId(error.id);
    detail.setProperties(encode(error.properties, marks));
    detail.setReasonsList(error.reasons);
    return withDetail(message, detail, "pulumirpc.ErrorResourceInitFailed");
  }
  if ((error as grpc.ServiceError | undefined)?.code !== undefined && (error as grpc.ServiceError).metadata) return error as grpc.ServiceError;
  return Object.assign(new Error(message), { code: grpc.status.UNKNOWN, details: message, metadata: new grpc.Metadata() });
}

/** Configure's answer when settings are missing: the engine prints one line per key, with `pulumi config set`. */
export function missingKeysError(keys: Array<{ name: string; description: string }>): grpc.ServiceError {
  const detail = new prov.ConfigureErrorMissingKeys();
  detail.setMissingkeysList(
    keys.map((key) => {
      const missing = new prov.ConfigureErrorMissingKeys.MissingKey();
      missing.setName(key.name);
      missing.setDescription(key.description);
      return missing;
    }),
  );
  return withDetail(`missing required configuration: ${keys.map((k) => k.name).join(", ")}`, detail, "pulumirpc.ConfigureErrorMissingKeys");
}
