/**
 * While a resource of this package registers, the Pulumi SDK's leak-report stacks are left
 * unformatted (provider/registration-stacks.ts): what a program's own stacks show must not change.
 */
import * as pulumi from "@pulumi/pulumi";
import { Pod } from "../../provider/classes";
import { skipLeakReportStacks } from "../../provider/registration-stacks";

type Formatter = NonNullable<ErrorConstructor["prepareStackTrace"]>;

/** Runs `body` with `formatter` as the stack formatter (a program's source-map support), then puts the original back. */
function withFormatter<T>(formatter: Formatter | undefined, body: () => T): T {
  const original = Error.prepareStackTrace;
  Error.prepareStackTrace = formatter as Formatter; // undefined puts back V8's own
  try {
    return body();
  } finally {
    Error.prepareStackTrace = original;
  }
}

const formatted: Formatter = (error, frames) => `formatted ${String(error)} (${frames.length > 0 ? frames[0]!.getFunctionName() : "no frames"})`;

// Named as the SDK's function is, so V8 reports that name for the top frame.
function debuggablePromise(): string | undefined {
  return new Error().stack;
}
function userCode(): string | undefined {
  return new Error("boom").stack;
}

describe("skipLeakReportStacks", () => {
  it("leaves only the leak report's stacks empty, and puts the program's formatter back", () => {
    withFormatter(formatted, () => {
      const restore = skipLeakReportStacks();
      expect(debuggablePromise()).toBe("");
      expect(userCode()).toBe("formatted Error: boom (userCode)");
      restore();
      expect(Error.prepareStackTrace).toBe(formatted);
      expect(debuggablePromise()).toBe("formatted Error (debuggablePromise)");
    });
  });

  it("changes nothing when the program has no formatter of its own, or asks for the leak report", () => {
    withFormatter(undefined, () => {
      skipLeakReportStacks()();
      expect(Error.prepareStackTrace).toBeUndefined();
    });
    const before = process.env.PULUMI_DEBUG_PROMISE_LEAKS;
    process.env.PULUMI_DEBUG_PROMISE_LEAKS = "true";
    try {
      withFormatter(formatted, () => {
        const restore = skipLeakReportStacks();
        expect(debuggablePromise()).toBe("formatted Error (debuggablePromise)");
        restore();
      });
    } finally {
      if (before === undefined) delete process.env.PULUMI_DEBUG_PROMISE_LEAKS;
      else process.env.PULUMI_DEBUG_PROMISE_LEAKS = before;
    }
  });

  it("keeps a formatter the program installed meanwhile", () => {
    withFormatter(formatted, () => {
      const restore = skipLeakReportStacks();
      const installedMeanwhile: Formatter = () => "mine";
      Error.prepareStackTrace = installedMeanwhile;
      restore();
      expect(Error.prepareStackTrace).toBe(installedMeanwhile);
    });
  });
});

describe("a resource class", () => {
  beforeAll(() => pulumi.runtime.setMocks({ newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }), call: (args) => args.inputs }, "stacks-test", "dev"));

  it("puts the program's formatter back after registering, and after a registration that throws", () => {
    withFormatter(formatted, () => {
      new Pod("stacks", { name: "stacks", image: "i", cpu: { id: "cpu3c", vcpuCount: 2 } });
      expect(Error.prepareStackTrace).toBe(formatted);
      // The SDK refuses a resource without a name, inside the constructor's `super` call.
      expect(() => new Pod("", { name: "unnamed", image: "i", cpu: { id: "cpu3c", vcpuCount: 2 } })).toThrow(/Missing resource name/);
      expect(Error.prepareStackTrace).toBe(formatted);
    });
  });
});
