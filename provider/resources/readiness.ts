/**
 * Readiness, as the resources that take it share it: the `readiness` input, the `ready` output,
 * a pod as a probe target, and the input's rules against the other inputs (the rules themselves
 * are the contract's, contract/readiness.ts; the probes run in provider/runtime/readiness.ts;
 * what a definition tells them is `Readiness` in definition.ts).
 */
import type { Pod } from "../../sdk";
import { readinessViolations } from "../../contract/readiness";
import { containsUnknown } from "./unknowns";
import type { InputSpec, OutputList, ProbeTarget, Readiness } from "./definition";

/**
 * The `readyTimeoutSeconds` input: how long `what` may wait, with its default (`seconds`) stated
 * once, here, for its doc and for the runtime (which applies `unset`).
 */
export function readyTimeoutInput(seconds: number, what: string) {
  return { type: "number", onChange: "update", sent: "provider", positive: true, unset: seconds, doc: `${what}, in seconds. Default ${seconds}.` } as const satisfies InputSpec;
}

/** The `readiness` input; `probes` lists the ones this resource takes, for its doc. */
export function readinessInput(subject: string, probes: string) {
  return {
    type: "object",
    properties: {
      tcp: { type: "object", optional: true, properties: { port: { type: "integer" } } },
      ssh: { type: "boolean", optional: true },
      http: { type: "object", optional: true, properties: { port: { type: "integer" }, path: { type: "string", optional: true }, expectStatus: { type: "integer", optional: true } } },
      logLine: { type: "string", optional: true },
      minReadyWorkers: { type: "integer", optional: true },
    },
    // A change probes again (an update), it never replaces.
    onChange: "update",
    sent: "provider",
    doc: `Probes that must all pass before create (and an update) returns, within \`readyTimeoutSeconds\`: ${subject} is ready when ${probes}. A failure records the resource with \`ready: false\`; the next \`up\` probes again without recreating it. See docs/provider.md, "Readiness".`,
  } as const satisfies InputSpec;
}

/** The `ready` output: what the last probing found. */
export const READINESS_OUTPUTS = {
  ready: {
    type: "boolean",
    nullable: true,
    doc: "Whether every `readiness` probe passed at the last create or update: true; false when they did not within the deadline (the next `up` probes again); null without `readiness`.",
  },
} as const satisfies OutputList;

/** A pod (or a cluster member) as a probe target: its published ports, direct SSH and log. */
export function podTarget(pod: Pod, label = pod.id): ProbeTarget {
  const direct = pod.ssh.direct;
  return {
    label,
    network: {
      ports: (pod.runtime?.ports ?? []).map((p) => ({ privatePort: p.private, publicPort: p.public, ip: p.ip, type: p.type ?? "" })),
      sshDirect: direct ? { host: direct.host, port: direct.port } : null,
    },
    logs: { stream: (api, options) => api.pods.logs(pod.id, options), since: pod.startedAt },
    secrets: [pod.env.JUPYTER_PASSWORD].filter((value): value is string => typeof value === "string" && value.length >= 4),
  };
}

/**
 * The rules of the inputs' `readiness` for a resource with `readiness` (contract/readiness.ts),
 * against what its other inputs say: its `ports` (not known before create when a template gives
 * them) and its `workers.min`.
 */
export function readinessInputViolations(readiness: Readiness<unknown>, inputs: Record<string, unknown>): string[] {
  // Not known at preview: a port list with an unknown entry, or one a template or release gives.
  const given = inputs.ports;
  const ports = containsUnknown(given) ? undefined : Array.isArray(given) ? (given as string[]) : inputs.templateId !== undefined || inputs.hubRepo !== undefined ? undefined : [];
  // The service's default minimum is 0; a Hub release or a template may set one of its own.
  const workers = inputs.workers as { min?: number } | undefined;
  const workersMin = containsUnknown(workers) ? undefined : (workers?.min ?? (inputs.hubRepo !== undefined || inputs.templateId !== undefined ? undefined : 0));
  return readinessViolations(inputs.readiness, { accepts: readiness.accepts, refusedBecause: readiness.refusedBecause, ports, workersMin });
}
