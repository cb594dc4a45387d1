/**
 * Progress lines through the engine's `Log` RPC. The engine hides a resource plugin's stdout
 * and stderr (they only show with verbose logging), so the runtime's progress lines would
 * vanish; sent as diagnostics they reach the CLI attributed to their resource. The resource is
 * the one whose request is being served: each request runs inside `withResource(urn, …)`.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import * as grpc from "@grpc/grpc-js";
import * as enginerpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engine from "@pulumi/pulumi/proto/engine_pb";

const currentUrn = new AsyncLocalStorage<string>();

/** Runs `fn` with progress lines attributed to the resource `urn`. */
export function withResource<T>(urn: string, fn: () => Promise<T>): Promise<T> {
  return currentUrn.run(urn, fn);
}

export interface EngineLog {
  /** Sends one line as an info diagnostic of the current resource; stderr when there is no engine. */
  write(line: string): void;
  close(): void;
}

export function engineLog(address: () => string | undefined): EngineLog {
  let client: enginerpc.EngineClient | undefined;
  let clientAddress: string | undefined;
  return {
    write(line) {
      const target = address();
      if (!target) {
        process.stderr.write(`${line}\n`);
        return;
      }
      if (!client || clientAddress !== target) {
        client?.close();
        client = new enginerpc.EngineClient(target, grpc.credentials.createInsecure());
        clientAddress = target;
      }
      const request = new engine.LogRequest();
      request.setSeverity(engine.LogSeverity.INFO);
      request.setMessage(line);
      request.setUrn(currentUrn.getStore() ?? "");
      request.setEphemeral(false);
      // A line the engine cannot take is not worth failing the operation: it goes to stderr.
      client.log(request, (error) => {
        if (error) process.stderr.write(`${line}\n`);
      });
    },
    close() {
      client?.close();
      client = undefined;
    },
  };
}
