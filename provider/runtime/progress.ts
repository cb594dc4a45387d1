/**
 * Progress lines from the provider process. `pulumi.log` has no engine connection there;
 * console output reaches the CLI, unattributed, so every line names its resource, and each
 * transition is printed once. The native plugin's stdout is hidden by the engine, so it
 * installs a sink that sends the lines through the engine's `Log` RPC instead.
 */
import { redact } from "./secrets";

const lastReported = new Map<string, string>();

type ProgressSink = (line: string) => void;
let sink: ProgressSink = (line) => console.log(line);

/** Where progress lines go from now on (already redacted); the default is stdout. */
export function setProgressSink(next: ProgressSink): void {
  sink = next;
}

export function reportTransition(kind: string, name: string, id: string, state: string): void {
  const key = `${kind}:${id}`;
  const previous = lastReported.get(key);
  if (previous === state) return;
  lastReported.set(key, state);
  sink(redact(`[compute] ${kind} ${name} (${id}): ${previous ? `${previous} -> ${state}` : state}`));
}

export function report(kind: string, name: string, message: string): void {
  sink(redact(`[compute] ${kind} ${name}: ${message}`));
}

export function forget(kind: string, id: string): void {
  lastReported.delete(`${kind}:${id}`);
}
