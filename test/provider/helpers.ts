/**
 * Provider handler tests run the runtime the serialized provider forwards to, in-process,
 * against a started emulator. (Serialization itself is proven in a plain Node process by
 * serialization.test.ts, and end to end by test/e2e.)
 */
import { EmulatorControl, startEmulator } from "../../emulator";
import * as runtime from "../../provider/runtime";
import { setProgressSink } from "../../provider/runtime/progress";
import { useStarted } from "../helpers/suite";

export const PROVIDER_TEXT = "exports.handler = () => ({}) /* stands in for the serialized provider */";

export interface ProviderEnv {
  url: string;
  apiKey: string;
  control: EmulatorControl;
  close(): Promise<void>;
}

export async function bootProvider(): Promise<ProviderEnv> {
  const emulator = await startEmulator({ port: 0, profile: "fast", quiet: true });
  runtime.configure({ get: (key: string) => ({ "compute:baseUrl": emulator.url, "compute:apiKey": emulator.apiKey })[key] });
  return {
    url: emulator.url,
    apiKey: emulator.apiKey,
    control: new EmulatorControl(emulator.url, emulator.adminToken),
    close: () => emulator.close(),
  };
}

/**
 * A provider environment for the tests of a file (or describe block), closed after the last;
 * with `resetBeforeEach` the emulator is back to its fixture before every test.
 */
export function useProvider(options: { resetBeforeEach?: boolean } = {}): ProviderEnv {
  return useStarted(bootProvider, options.resetBeforeEach ? (env) => env.control.reset() : undefined);
}

/** What the engine passes: the checked inputs plus the serialized provider. */
export async function checked(kind: "pod" | "sandbox", args: Record<string, unknown>, olds: Record<string, unknown> = {}) {
  const result = await runtime.resources[kind].check(olds, { ...args, __provider: PROVIDER_TEXT });
  if (result.failures.length > 0) throw new Error(`unexpected check failures: ${JSON.stringify(result.failures)}`);
  return result.inputs;
}

/** Outputs as the engine records them (the host adds __provider). */
export function recorded(outs: Record<string, unknown>): Record<string, any> {
  return { ...outs, __provider: PROVIDER_TEXT };
}

/** What `run` resolves with, and the progress lines the provider printed meanwhile. */
export async function printed<T>(run: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const lines: string[] = [];
  setProgressSink((line) => lines.push(line));
  try {
    return { value: await run(), lines };
  } finally {
    setProgressSink((line) => console.log(line));
  }
}

export { runtime };
