/**
 * Registering a resource costs the program a formatted stack trace per output property: the
 * Pulumi SDK (3.248) wraps each property's four promises in `debuggablePromise`, which reads
 * `new Error().stack` at once, kept only for its promise-leak report. In a TypeScript program
 * ts-node's source-map-support formats every such stack through the source maps, about 0.1 ms
 * each; a Pod class registers some thirty outputs, so a 1000-resource program spent 15 of its
 * 37 CPU seconds there (profile of the fleet program's preview, docs/benchmarks.md, scenario 9),
 * on the two cores the engine needs for its checkpoints.
 *
 * While a resource of this package registers, the stacks those promises ask for are left
 * empty; every other stack is formatted as before: the resource's own source position (which
 * the SDK reads with the limit it sets), and the error the SDK prepares for a failed
 * registration (formatted when read, after this returns). With PULUMI_DEBUG_PROMISE_LEAKS set,
 * the leak report wants them, and nothing changes.
 */

/** The SDK's function whose stacks are only for its leak report. */
const LEAK_REPORT_FRAME = "debuggablePromise";

type PrepareStackTrace = NonNullable<ErrorConstructor["prepareStackTrace"]>;

/**
 * Leaves the leak report's stacks empty until the returned function is called (in a `finally`:
 * a class constructor's `super` call cannot go in a callback), which puts the formatter back.
 */
export function skipLeakReportStacks(): () => void {
  const formatter = Error.prepareStackTrace;
  // No formatter to wrap (V8 formats by itself), or the leak report is wanted: nothing to do.
  // Node's own default formatter is wrapped like a program's (ts-node's): either way only the
  // leak report's stacks are skipped.
  if (typeof formatter !== "function" || process.env.PULUMI_DEBUG_PROMISE_LEAKS) return () => undefined;
  const skipping: PrepareStackTrace = (error, frames) => (frames[0]?.getFunctionName() === LEAK_REPORT_FRAME ? "" : formatter(error, frames));
  Error.prepareStackTrace = skipping;
  return () => {
    // Put back only our own: whatever replaced it meanwhile stays.
    if (Error.prepareStackTrace === skipping) Error.prepareStackTrace = formatter;
  };
}
