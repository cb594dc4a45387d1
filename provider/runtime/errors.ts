/**
 * What a failed provider method tells its user: one line that names the resource, the
 * operation, and for an API failure the request, the status, the service's detail (and its
 * violations) and the request id, with no stack trace; the same in both faces.
 *
 * The failures the product expects (the service's answers, an unreachable service, a wait that
 * ended badly, a refused key: every `ComputeError`, `WaitFailed` and partial failure) lose
 * their stack: it points into this package's sources and helps nobody fix a key or a quota.
 * Anything else is the product's own bug and keeps its stack.
 *
 * The dynamic-provider host prints every error a method throws to stderr as well, with its
 * stack (`console.error(\`${e}: ${e.stack}\`)` in `@pulumi/pulumi/cmd/dynamic-provider`), which
 * the CLI shows beside the error it reports: the same failure twice, with the trace. So an
 * expected error's exact print is remembered and that one write is dropped; nothing else that
 * goes to stderr is touched.
 */
import { ApiError, ComputeError, apiFailureLine, type NotFoundError } from "../../sdk";
import { PartialFailure } from "./partial";
import { WaitFailed } from "./wait";
import { processSlot } from "./process-memory";

const expected = (error: unknown): error is Error => error instanceof ComputeError || error instanceof WaitFailed || error instanceof PartialFailure;

/** The host's prints to drop, installed once per process. */
function silenced(): Set<string> {
  // console.error is wrapped once per process, whichever copy of this module asks first.
  const prints = processSlot("silenced-prints", () => {
    const set = new Set<string>();
    const write = console.error.bind(console);
    console.error = (...args: unknown[]) => {
      if (args.length === 1 && typeof args[0] === "string" && set.delete(args[0])) return;
      write(...args);
    };
    return set;
  });
  // Errors the host never prints (create, update and read errors of the native face) would stay:
  // keep the newest few hundred.
  if (prints.size > 500) {
    const oldest = prints.values().next();
    if (!oldest.done) prints.delete(oldest.value);
  }
  return prints;
}

/**
 * `error` as the engine should show it for `operation` on `kind` `name`: an expected failure
 * becomes one line (multi-line details of our own, such as a list of violations, stay), with
 * no stack; a bug is returned as it is.
 */
export function userFacing(error: unknown, kind: string, name: string, operation: string): unknown {
  if (!expected(error)) return error;
  // A lookup's line already names the kind and what was looked for: "read failed" would only blur it.
  if (error instanceof LookupFailed) return error;
  const what = error instanceof ApiError ? apiFailureLine(error) : error.message;
  // A copy: one error object may fail many calls (the run's key check, a shared list), and each
  // must say only its own resource.
  const copy = Object.defineProperties(Object.create(Object.getPrototypeOf(error) as object), Object.getOwnPropertyDescriptors(error)) as Error;
  copy.message = `${kind} ${name}: ${operation} failed: ${what}`;
  copy.stack = copy.message;
  if (copy instanceof PartialFailure) Object.defineProperty(copy, "reasons", { value: [copy.message], enumerable: true, writable: true, configurable: true });
  return copy;
}

/**
 * Drops the dynamic-provider host's own print of `error`, the one it writes to stderr beside the
 * error it reports. Called with the error exactly as it leaves the provider (redacted), since the
 * host prints that one. Only for the errors `userFacing` made one line: a bug keeps its print.
 */
export function withoutHostPrint(error: unknown): unknown {
  if (expected(error)) silenced().add(`${error}: ${error.stack}`);
  return error;
}

/**
 * A data-source function's failure as its user reads it: one line naming the function and, for
 * an API failure, the request, status, detail and request id; a bug as it is.
 */
export function functionFailure(name: string, error: unknown): unknown {
  if (!(error instanceof ComputeError)) return error;
  const failed = new Error(`${name} failed: ${error instanceof ApiError ? apiFailureLine(error) : error.message}`);
  failed.stack = failed.message;
  return failed;
}

/**
 * A lookup that found no object, or more than one: a static `get` (the read of an object the
 * stack does not hold) or a `get<Kind>` function (provider/functions.ts). Its message is the
 * whole story, in one line that names the kind by its type token and what was looked for.
 */
export class LookupFailed extends ComputeError {
  static override readonly brand: string = "LookupFailed";
  constructor(message: string) {
    super(message);
    this.stack = message;
  }
}

/** No object of kind `token` has this id; `cause` is the service's 404, worded as every API failure is. */
export function notFound(token: string, id: string, cause?: NotFoundError): LookupFailed {
  return new LookupFailed(`${token} ${JSON.stringify(id)} not found${cause ? `: ${apiFailureLine(cause)}` : ""}`);
}

/** The object of kind `token` with this id exists but has ended: nothing to look up any more. */
export function endedLookup(token: string, id: string, state: string): LookupFailed {
  return new LookupFailed(`${token} ${JSON.stringify(id)} not found: it is ${state}`);
}

/** No object of kind `token` has this name. */
export function noneNamed(token: string, name: string): LookupFailed {
  return new LookupFailed(`${token} named ${JSON.stringify(name)} not found`);
}

/** More than one object of kind `token` has this name: each id, so the program can pick one. */
export function ambiguousName(token: string, name: string, ids: string[]): LookupFailed {
  return new LookupFailed(`${token} named ${JSON.stringify(name)} is ambiguous: ${ids.length} match (${ids.join(", ")}); look it up by id`);
}
