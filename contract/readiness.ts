/**
 * Readiness probes: what "ready" means beyond the service's RUNNING, as the program states it
 * (`readiness` on Pod, Sandbox, Cluster and ServerlessEndpoint), and every rule about it that can
 * be judged before anything is created. The probes themselves run in the provider
 * (provider/runtime/readiness.ts); this is the rule book both the preview and the docs read.
 *
 * How each probe reaches the container (docs/provider.md, "Readiness"):
 * - `tcp` and `http` go to the port's public mapping (`runtime.ports`: `ip`:`public`), never to
 *   a proxy: the provider reaches only what the service publishes, with no credentials. So the
 *   port must be in `ports`; a port not listed has no mapping and the probe could never pass,
 *   which is a preview error rather than a wait that ends at its deadline.
 * - `ssh` reads the banner of the direct endpoint (`ssh.direct`, the published `22/tcp`). The
 *   proxy endpoint cannot be probed without credentials, so `22/tcp` must be in `ports`.
 * - `logLine` reads the container log from the start of the current run.
 * - `minReadyWorkers` counts the endpoint's workers that are RUNNING or IDLE on its current
 *   configuration (contract/serverless.ts `readyWorkers`).
 */
import { z } from "zod";
import { PORT_PROTOCOL } from "./common";
import { formatIssues } from "./issues";

export const PROBE_KINDS = ["tcp", "ssh", "http", "logLine", "minReadyWorkers"] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];

const port = z.int().min(1).max(65535);

export const ReadinessSpec = z.strictObject({
  tcp: z.strictObject({ port }).optional(),
  ssh: z.boolean().optional(),
  http: z
    .strictObject({
      port,
      path: z.string().startsWith("/", { message: 'must start with "/"' }).optional(),
      expectStatus: z.int().min(100).max(599).optional(),
    })
    .optional(),
  logLine: z.string().min(1).optional(),
  minReadyWorkers: z.int().min(1).optional(),
});
export type ReadinessSpec = z.infer<typeof ReadinessSpec>;

/** The probes a spec asks for (`ssh: false` asks for none). */
export function probesOf(spec: ReadinessSpec): ProbeKind[] {
  return PROBE_KINDS.filter((kind) => (kind === "ssh" ? spec.ssh === true : spec[kind] !== undefined));
}

/** An http probe passes on this status: the expected one, else any 2xx. */
export function statusPasses(status: number, expectStatus: number | undefined): boolean {
  return expectStatus === undefined ? status >= 200 && status < 300 : status === expectStatus;
}

/** What the resource offers the probes, as far as its inputs say. */
export interface ReadinessContext {
  /** The probes this kind of resource takes. */
  accepts: readonly ProbeKind[];
  /** Why it takes no others, for the message (`a sandbox publishes no port mappings`). */
  refusedBecause: string;
  /** Its `port/protocol` list; undefined when not known before create (from a template). */
  ports?: readonly string[];
  /** An endpoint's minimum number of workers; undefined when not known before create. */
  workersMin?: number;
}

/** `8000/http` is port 8000 over one of `protocols` (the contract's `port/protocol` form, common.ts). */
function isPort(spec: string, port: number, protocols: readonly string[]): boolean {
  const match = PORT_PROTOCOL.exec(spec);
  return match !== null && Number(match[1]) === port && protocols.includes(match[2]!);
}

/**
 * Every rule of a `readiness` input, all at once, as `readiness.<path>: <rule>`. A member of the
 * wrong shape (or not known yet at preview) is named by the shape's rule, and the other members
 * are still judged on their own.
 */
export function readinessViolations(raw: unknown, context: ReadinessContext): string[] {
  if (raw === undefined || raw === null) return [];
  const parsed = ReadinessSpec.safeParse(raw);
  if (parsed.success) return ruleViolations(parsed.data, context, raw as Record<string, unknown>, false);
  const shape = formatIssues(parsed.error.issues).map((v) => `readiness${v.startsWith("(body)") ? v.slice("(body)".length) : `.${v}`}`);
  if (typeof raw !== "object" || Array.isArray(raw)) return shape;
  const invalid = new Set<PropertyKey>();
  for (const issue of parsed.error.issues) {
    if (issue.path.length > 0) invalid.add(issue.path[0]!);
    else if (issue.code === "unrecognized_keys") issue.keys.forEach((key) => invalid.add(key));
    else return shape;
  }
  const rest = ReadinessSpec.safeParse(Object.fromEntries(Object.entries(raw).filter(([key]) => !invalid.has(key))));
  return rest.success ? [...shape, ...ruleViolations(rest.data, context, raw as Record<string, unknown>, true)] : shape;
}

/** The rules beyond the shape, on the members that have it (`partial`: some did not). */
function ruleViolations(spec: ReadinessSpec, context: ReadinessContext, raw: Record<string, unknown>, partial: boolean): string[] {
  const out: string[] = [];
  if (probesOf(spec).length === 0 && !partial) out.push(`readiness: names no probe; set at least one of ${context.accepts.join(", ")}`);
  // Which probes it asks for, from what was written, whatever shape it has.
  const asked = PROBE_KINDS.filter((kind) => raw[kind] !== undefined && !(kind === "ssh" && raw[kind] === false));
  for (const kind of asked) {
    if (!context.accepts.includes(kind)) out.push(`readiness.${kind}: not a probe of this resource (${context.refusedBecause}); it takes ${context.accepts.join(", ")}`);
  }
  const listed = context.ports;
  if (listed !== undefined) {
    const has = (port: number, protocols: string[]) => listed.some((spec) => isPort(spec, port, protocols));
    if (spec.ssh === true && context.accepts.includes("ssh") && !has(22, ["tcp"])) {
      out.push('readiness.ssh, ports: needs "22/tcp" in ports (the probe reads the banner of the direct SSH endpoint, the published 22/tcp; the proxy cannot be probed without credentials)');
    }
    if (spec.tcp && context.accepts.includes("tcp") && !has(spec.tcp.port, ["tcp", "http"])) {
      out.push(`readiness.tcp.port, ports: ${spec.tcp.port} is not in ports, so it has no public mapping to connect to (add "${spec.tcp.port}/tcp")`);
    }
    if (spec.http && context.accepts.includes("http") && !has(spec.http.port, ["http", "tcp"])) {
      out.push(`readiness.http.port, ports: ${spec.http.port} is not in ports, so it has no public mapping to send the request to (add "${spec.http.port}/http")`);
    }
  }
  if (spec.logLine !== undefined) {
    try {
      new RegExp(spec.logLine);
    } catch (error) {
      out.push(`readiness.logLine: is not a valid regular expression (${(error as Error).message})`);
    }
  }
  if (spec.minReadyWorkers !== undefined && context.accepts.includes("minReadyWorkers") && context.workersMin !== undefined) {
    const min = context.workersMin;
    if (spec.minReadyWorkers > min) {
      out.push(`readiness.minReadyWorkers, workers.min: ${spec.minReadyWorkers} ready workers need workers.min ≥ ${spec.minReadyWorkers} (is ${min}); workers above the minimum start only under load, so the wait could never end`);
    }
  }
  return out;
}
