/**
 * The native plugin `pulumi-resource-compute`: Pulumi's ResourceProvider gRPC service, running
 * the same runtime as the dynamic resources (provider/runtime), so a pod behaves the same from a
 * TypeScript, YAML or Python program.
 *
 * Served with the generated stubs rather than `@pulumi/pulumi/provider`'s `main()`: in 3.248 that
 * server ignores provider configuration (CheckConfig/DiffConfig unimplemented, Configure's
 * variables dropped), has no Handshake (so no `supportsPreview`), crashes on import (`read`
 * expects properties) and forwards no detailed diff (design notes: docs/provider.md, "The native
 * plugin").
 *
 * Each call: unwrap the engine's secrets and unknowns (properties.ts), hand the runtime the same
 * plain bags the dynamic host does (with `secretInputs` naming the secret inputs, so its
 * redaction works the same), and wrap secrets again on the way out.
 */
import * as grpc from "@grpc/grpc-js";
import * as plug from "@pulumi/pulumi/proto/plugin_pb";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as prov from "@pulumi/pulumi/proto/provider_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { RESOURCES, resourceByToken } from "../resources";
import { BOOKKEEPING_INPUTS, fixedOutputs, nativeToken, secretInputs, secretOutputs, type OutputList } from "../resources/definition";
import * as runtime from "../runtime";
import { setProgressSink } from "../runtime/progress";
import type { Props } from "../resources/definition";
import { changedSettings, configFailures, settingsFrom } from "./config";
import { engineLog, withResource } from "./engine-log";
import { missingKeysError, toGrpcError } from "./errors";
import { functionFor } from "./invoke";
import { ownerMarkForUrn, parseUrn } from "./owner";
import { decode, encode, secretNames, UNKNOWN_SENTINELS, withSecrets, type Marks, type Path } from "./properties";
import { packageSchema } from "./schema";
import { packageVersion } from "../../sdk/version";

interface Kind {
  handlers: runtime.Handlers;
  outputs: OutputList;
  /** The output that repeats the resource id; with `createdAt`, what an update never changes. */
  idOutput: string;
  /** Inputs that are secret however the program gives them (a password). */
  alwaysSecret: Path[];
}

function kindOf(type: string): Kind {
  const definition = resourceByToken(type);
  if (!definition || type !== nativeToken(definition)) throw new Error(`unknown resource type ${type}: this plugin serves ${RESOURCES.map(nativeToken).join(", ")}`);
  return { handlers: runtime.nativeHandlersFor(type), outputs: definition.outputs, idOutput: definition.idOutput, alwaysSecret: secretInputs(definition.inputs).map((name) => [name]) };
}

/** Inputs the runtime records for itself; never a change a user made. */
const BOOKKEEPING = new Set<string>([...BOOKKEEPING_INPUTS, "__provider"]);

/** Outputs are secret where the inputs they echo were, and where the output list says so. */
function outputMarks(kind: Kind, marks: Marks, ...more: Path[][]): Marks {
  return withSecrets(marks, ...more, secretOutputs(kind.outputs).map((name) => [name]), kind.alwaysSecret);
}

/**
 * Each computed output as unknown: what a preview shows before the API answers. Always the
 * string sentinel, whatever the output's type: the engine hands a typed one on unchanged, and
 * the language SDKs (Python, Node.js) know only the string one, so a program would read a
 * number output's sentinel as a string and its `apply` would run on it in preview.
 */
function unknownOutputs(kind: Kind, keep: Props = {}): Props {
  const out: Props = {};
  for (const name of Object.keys(kind.outputs)) {
    out[name] = name in keep ? keep[name] : UNKNOWN_SENTINELS.string;
  }
  return out;
}

/** The path of every `env` value in these bags. */
function envPaths(...bags: Array<Props | undefined>): Path[] {
  const keys = new Set(bags.flatMap((bag) => Object.keys((bag?.env as Record<string, unknown> | null | undefined) ?? {})));
  return [...keys].map((key) => ["env", key]);
}

/**
 * Whether a Read is the refresh of a resource the stack made: only those have inputs this
 * plugin's `check` wrote, which always hold the owner mark. Without it the read is of an object
 * someone else made: an import (the engine sends no inputs), a static `get` or YAML `get` (the
 * engine sends the program's `get` properties, usually none, as both inputs and state), or the
 * refresh of either (the inputs the read recorded, still without a mark). Presence of inputs
 * alone does not tell: a `get` sends an empty bag, not none.
 */
function readOfOwned(req: prov.ReadRequest, inputs: Props): boolean {
  return req.hasInputs() && runtime.ownedByStack(inputs);
}

const stable = (value: unknown) => JSON.stringify(value ?? null);

/**
 * The engine's detailed diff from the runtime's verdict: the top-level inputs that changed, each
 * marked as a replacement when the runtime's `replaces` names it (or a path inside it). A
 * replacement the runtime decides from a recorded fact (a sandbox that ended) is listed too.
 */
function detailedDiff(oldInputs: Props, news: Props, replaces: string[]): Map<string, prov.PropertyDiff.Kind> {
  const replaced = new Set(replaces.map((path) => path.split(/[.[]/)[0]!));
  const K = prov.PropertyDiff.Kind;
  const out = new Map<string, prov.PropertyDiff.Kind>();
  for (const key of new Set([...Object.keys(oldInputs), ...Object.keys(news)])) {
    if (BOOKKEEPING.has(key) || stable(oldInputs[key]) === stable(news[key])) continue;
    const replace = replaced.has(key);
    if (oldInputs[key] === undefined) out.set(key, replace ? K.ADD_REPLACE : K.ADD);
    else if (news[key] === undefined) out.set(key, replace ? K.DELETE_REPLACE : K.DELETE);
    else out.set(key, replace ? K.UPDATE_REPLACE : K.UPDATE);
  }
  for (const key of replaced) if (!out.has(key)) out.set(key, K.UPDATE_REPLACE);
  return out;
}

type Handler<Req, Res> = (request: Req) => Promise<Res>;

/** A unary method whose work runs with progress attributed to the request's resource. */
function unary<Req, Res>(handler: Handler<Req, Res>) {
  return (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => {
    const urn = (call.request as { getUrn?: () => string | undefined }).getUrn?.() ?? "";
    withResource(urn, () => handler(call.request)).then(
      (response) => callback(null, response),
      (error: unknown) => callback(toGrpcError(error)),
    );
  };
}

export interface ServeOptions {
  /** The engine's address (the plugin's last argument); Handshake may give it too. */
  engineAddress?: string;
  /** The project directory (the engine starts plugins there), for the stack's salt. */
  projectDir?: string;
}

export interface Served {
  port: number;
  close(): Promise<void>;
}

function service(options: ServeOptions, engine: { address?: string }): Partial<provrpc.IResourceProviderServer> {
  const version = packageVersion();
  const projectDir = options.projectDir ?? process.cwd();

  return {
    handshake: unary(async (req: prov.ProviderHandshakeRequest) => {
      engine.address = req.getEngineAddress() || engine.address;
      return new prov.ProviderHandshakeResponse().setAcceptSecrets(true).setAcceptResources(false).setAcceptOutputs(false).setSupportsAutonamingConfiguration(false);
    }),

    getPluginInfo: unary(async () => new plug.PluginInfo().setVersion(version)),

    getSchema: unary(async (req: prov.GetSchemaRequest) => {
      if (req.getVersion() !== 0) throw new Error(`schema version ${req.getVersion()} is not supported (only 0)`);
      const schema: unknown = packageSchema(version);
      return new prov.GetSchemaResponse().setSchema(typeof schema === "string" ? schema : JSON.stringify(schema));
    }),

    checkConfig: unary(async (req: prov.CheckRequest) => {
      const news = decode(req.getNews()).props;
      const response = new prov.CheckResponse().setInputs(req.getNews());
      for (const failure of configFailures(news)) response.addFailures(new prov.CheckFailure().setProperty(failure.property).setReason(failure.reason));
      return response;
    }),

    diffConfig: unary(async (req: prov.DiffRequest) => {
      const changed = changedSettings(decode(req.getOldInputs() ?? req.getOlds()).props, decode(req.getNews()).props);
      const response = new prov.DiffResponse().setDiffsList(changed);
      return response.setChanges(changed.length > 0 ? prov.DiffResponse.DiffChanges.DIFF_SOME : prov.DiffResponse.DiffChanges.DIFF_NONE);
    }),

    configure: unary(async (req: prov.ConfigureRequest) => {
      const { reader, missing } = settingsFrom(req.getVariablesMap());
      if (missing.length > 0) throw missingKeysError(missing);
      runtime.configure(reader, { stack: parseUrn(req.getUrn() ?? "")?.stack });
      // The run's one check of the key: a refused key or an unreachable service fails here,
      // before any resource step, as one error line for the provider.
      await runtime.credentials();
      return new prov.ConfigureResponse().setAcceptsecrets(true).setSupportspreview(true).setAcceptresources(false).setAcceptoutputs(false);
    }),

    check: unary(async (req: prov.CheckRequest) => {
      const kind = kindOf(req.getType());
      const news = decode(req.getNews());
      const olds = decode(req.getOlds());
      const inputs: Props = { ...news.props };
      const marks = withSecrets(news.marks, kind.alwaysSecret.filter(([name]) => inputs[name as string] !== undefined));
      // What the resource classes add for the dynamic resources, derived here from the request.
      const secret = secretNames(marks);
      if (secret.length > 0) inputs.secretInputs = secret;
      else delete inputs.secretInputs;
      if (inputs.ownerMark === undefined) inputs.ownerMark = ownerMarkForUrn(req.getUrn(), projectDir);
      if (inputs.name === undefined && inputs.namePrefix === undefined && "name" in resourceByToken(req.getType())!.inputs) inputs.namePrefix = parseUrn(req.getUrn())?.name;
      const result = await kind.handlers.check(olds.props, inputs);
      const response = new prov.CheckResponse().setInputs(encode(result.inputs, marks));
      for (const failure of result.failures) response.addFailures(new prov.CheckFailure().setProperty(failure.property).setReason(failure.reason));
      return response;
    }),

    diff: unary(async (req: prov.DiffRequest) => {
      const kind = kindOf(req.getType());
      const olds = decode(req.getOlds()).props;
      const news = decode(req.getNews()).props;
      const result = await kind.handlers.diff(req.getId(), olds, news);
      const response = new prov.DiffResponse().setDeletebeforereplace(result.deleteBeforeReplace);
      if (!result.changes) return response.setChanges(prov.DiffResponse.DiffChanges.DIFF_NONE);
      const oldInputs = req.getOldInputs() ? decode(req.getOldInputs()).props : olds;
      const detailed = detailedDiff(oldInputs, news, result.replaces);
      response.setChanges(prov.DiffResponse.DiffChanges.DIFF_SOME);
      response.setReplacesList([...new Set(result.replaces.map((path) => path.split(/[.[]/)[0]!))]);
      response.setDiffsList([...detailed.keys()]);
      if (detailed.size > 0) {
        response.setHasdetaileddiff(true);
        for (const [key, diffKind] of detailed) {
          response.getDetaileddiffMap().set(key, new prov.PropertyDiff().setKind(diffKind).setInputdiff(key in oldInputs || key in news));
        }
      }
      return response;
    }),

    create: unary(async (req: prov.CreateRequest) => {
      const kind = kindOf(req.getType());
      const news = decode(req.getProperties());
      const marks = outputMarks(kind, news.marks);
      // Preview: no API call; the outputs are what the API will tell.
      if (req.getPreview()) return new prov.CreateResponse().setId("").setProperties(encode({ ...news.props, ...unknownOutputs(kind) }, marks));
      try {
        const created = await kind.handlers.create(news.props);
        return new prov.CreateResponse().setId(created.id).setProperties(encode(created.outs, marks));
      } catch (error) {
        throw toGrpcError(error, marks);
      }
    }),

    read: unary(async (req: prov.ReadRequest) => {
      const kind = kindOf(req.getType());
      // On import only the id arrives: no properties, no inputs.
      const state = decode(req.getProperties());
      const inputs = decode(req.getInputs());
      const marks = outputMarks(kind, state.marks, inputs.marks.secrets);
      try {
        const read = await kind.handlers.read(req.getId(), state.props);
        const response = new prov.ReadResponse().setId(read.id);
        if (!read.id) return response; // gone: the engine drops it from the state
        // A pod's env is where tokens live. For what the stack owns, the program said which
        // values are secret, and the marks above carry that. For an object someone else made,
        // nothing says which values are theirs to hide, so every env value is kept secret
        // (ciphertext in the state), in the outputs and in the inputs.
        const foreignEnv = readOfOwned(req, inputs.props) ? [] : envPaths(read.inputs, read.props);
        return response
          .setProperties(encode(read.props ?? {}, withSecrets(marks, foreignEnv)))
          .setInputs(encode(read.inputs ?? {}, withSecrets(inputs.marks, state.marks.secrets, foreignEnv)));
      } catch (error) {
        throw toGrpcError(error, marks);
      }
    }),

    update: unary(async (req: prov.UpdateRequest) => {
      const kind = kindOf(req.getType());
      const olds = decode(req.getOlds());
      const news = decode(req.getNews());
      const marks = outputMarks(kind, news.marks);
      if (req.getPreview()) {
        // What no update changes stays known, so what depends on it does not look replaced.
        const kept = Object.fromEntries([kind.idOutput, "createdAt", ...fixedOutputs(kind.outputs)].filter((key) => olds.props[key] !== undefined).map((key) => [key, olds.props[key]]));
        return new prov.UpdateResponse().setProperties(encode({ ...news.props, ...unknownOutputs(kind, kept) }, marks));
      }
      try {
        const updated = await kind.handlers.update(req.getId(), olds.props, news.props);
        return new prov.UpdateResponse().setProperties(encode(updated.outs, marks));
      } catch (error) {
        throw toGrpcError(error, marks);
      }
    }),

    delete: unary(async (req: prov.DeleteRequest) => {
      const kind = kindOf(req.getType());
      await kind.handlers.remove(req.getId(), decode(req.getProperties()).props);
      return new Empty();
    }),

    invoke: unary(async (req: prov.InvokeRequest) => {
      const fn = functionFor(req.getTok());
      if (!fn) throw new Error(`unknown function ${req.getTok()}`);
      return new prov.InvokeResponse().setReturn(encode(await fn(decode(req.getArgs()).props)));
    }),

    // Nothing to stop: waits end with their own deadlines, and the engine exits the plugin.
    cancel: unary(async () => new Empty()),
  };
}

/** Serves the plugin on 127.0.0.1 (an ephemeral port) and sends progress to the engine. */
export function serve(options: ServeOptions = {}): Promise<Served> {
  const engine: { address?: string } = { address: options.engineAddress };
  const log = engineLog(() => engine.address);
  setProgressSink((line) => log.write(line));
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(provrpc.ResourceProviderService, service(options, engine) as provrpc.IResourceProviderServer);
  return new Promise((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
      if (error) return reject(error);
      resolve({
        port,
        close: () =>
          new Promise<void>((done) => {
            log.close();
            server.tryShutdown(() => done());
          }),
      });
    });
  });
}
