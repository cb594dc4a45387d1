/**
 * Progress lines from the provider process. `pulumi.log` has no engine connection there;
 * console output reaches the CLI, unattributed, so every line names its resource, and each
 * transition is printed once.
 */
import { redact } from "./secrets";

const lastReported = new Map<string, string>();

export function reportTransition(kind: string, name: string, id: string, state: string): void {
  const key = `${kind}:${id}`;
  const previous = lastReported.get(key);
  if (previous === state) return;
  lastReported.set(key, state);
  console.log(redact(`[compute] ${kind} ${name} (${id}): ${previous ? `${previous} -> ${state}` : state}`));
}

export function report(kind: string, name: string, message: string): void {
  console.log(redact(`[compute] ${kind} ${name}: ${message}`));
}

export function forget(kind: string, id: string): void {
  lastReported.delete(`${kind}:${id}`);
}
