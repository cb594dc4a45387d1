/**
 * Readiness probes, run after the state wait with what is left of its deadline: every probe of
 * the `readiness` input against every target the definition names (a pod; each cluster member;
 * a sandbox; an endpoint), all at once, each on its own backoff (below). Ready means every one
 * passed.
 *
 * API calls: the network probes (tcp, ssh, http) use the addresses the state wait's last read
 * already holds, so they add none; the resource is read again only while a probe finds no
 * published address (a service may publish a mapping after RUNNING), at most once per backoff
 * step. `logLine` opens one log stream per target, `minReadyWorkers` polls the workers list:
 * those are the probes themselves. On failure, the last 20 log lines of each target not ready
 * are read once, for the message.
 *
 * Progress is reported on transitions only: `ssh: connection refused → banner received`.
 */
import { probesOf, type ProbeKind, type ReadinessSpec } from "../../contract";
import type { ComputeClient } from "../../sdk";
import { backoff, sleep } from "../../sdk/retry";
import type { PortMapping, ProbeTarget, Props, ResourceDefinition } from "../resources/definition";
import { probeHttp, probeSshBanner, probeTcp, type ProbeOutcome } from "./probes";
import { report } from "./progress";
import { REDACTED, redactLogLine } from "./secrets";
import { MAX_TIMER_MS } from "./timers";
import { client } from "./settings";
import { WaitFailed, readyTimeoutSeconds } from "./wait";

/**
 * Backoff of each probe, 1 s doubling, with equal jitter. A network probe costs one connection
 * and no API call, so it caps at 2 s: the time between the service answering and the create
 * returning is time a user pays for (bench scenario 11). A probe that is an API call (the
 * workers list) caps at 10 s, out of the rate limit's way.
 */
const NETWORK_BACKOFF = { initialBackoffMs: 1000, maxBackoffMs: 2000 };
const API_BACKOFF = { initialBackoffMs: 1000, maxBackoffMs: 10_000 };
/** One attempt never waits longer than this for an answer. */
const ATTEMPT_TIMEOUT_MS = 5000;
/** What is kept of the deadline for a last attempt. */
const FINAL_ATTEMPT_MS = 500;
/** The failure message's log read: all targets together, within this. */
const TAIL_READ_MS = 10_000;

/** Log lines quoted in a failure message, per target. */
export const FAILURE_LOG_LINES = 20;

/** The probes did not all pass by the deadline: the last object seen travels with it (the resource is recorded, never leaked). */
export class NotReady extends WaitFailed {}

/** The readiness spec of the inputs, when the program gave one and it asks for a probe. */
export function readinessOf(inputs: { readiness?: unknown }): ReadinessSpec | undefined {
  const spec = inputs.readiness as ReadinessSpec | undefined;
  return spec && typeof spec === "object" && probesOf(spec).length > 0 ? spec : undefined;
}

interface Probe {
  /** `ssh`, `http :8000/health`, with the target's label when there are several targets. */
  name: string;
  target: string;
  /** One attempt: `timeoutMs` is what it may take (never past the deadline); `signal` fires at the deadline. */
  attempt(targets: Map<string, ProbeTarget>, signal: AbortSignal, timeoutMs: number): Promise<Outcome>;
  /** Its backoff between attempts. */
  backoff: { initialBackoffMs: number; maxBackoffMs: number };
}

const mappingOf = (target: ProbeTarget | undefined, port: number): PortMapping | undefined =>
  target?.network?.ports.find((p) => p.privatePort === port && p.publicPort !== null && p.ip !== null);

/**
 * A failed attempt because the service has not published what the probe needs yet (an address,
 * a start time): the resource is read again before the next attempt.
 */
type Outcome = ProbeOutcome & { unpublished?: true };
const unpublished = (what: string): Outcome => ({ ok: false, detail: `no ${what} published yet`, unpublished: true });

/** The probes of one target, in the spec's order. */
function probesFor(spec: ReadinessSpec, kinds: ProbeKind[], label: string, api: ComputeClient): Probe[] {
  const out: Probe[] = [];
  for (const kind of kinds) {
    switch (kind) {
      case "tcp": {
        const port = spec.tcp!.port;
        out.push({
          name: `tcp :${port}`,
          backoff: NETWORK_BACKOFF,
          target: label,
          attempt: async (targets, _signal, timeoutMs) => {
            const mapping = mappingOf(targets.get(label), port);
            return mapping ? probeTcp(mapping.ip!, mapping.publicPort!, timeoutMs) : unpublished(`public mapping of ${port}`);
          },
        });
        break;
      }
      case "ssh":
        out.push({
          name: "ssh",
          backoff: NETWORK_BACKOFF,
          target: label,
          attempt: async (targets, _signal, timeoutMs) => {
            const target = targets.get(label);
            const mapping = mappingOf(target, 22);
            const direct = target?.network?.sshDirect ?? (mapping ? { host: mapping.ip!, port: mapping.publicPort! } : null);
            return direct ? probeSshBanner(direct.host, direct.port, timeoutMs) : unpublished("direct SSH endpoint (22/tcp)");
          },
        });
        break;
      case "http": {
        const { port, path = "/", expectStatus } = spec.http!;
        out.push({
          name: `http :${port}${path}`,
          backoff: NETWORK_BACKOFF,
          target: label,
          attempt: async (targets, _signal, timeoutMs) => {
            const mapping = mappingOf(targets.get(label), port);
            return mapping ? probeHttp(mapping.ip!, mapping.publicPort!, path, expectStatus, timeoutMs) : unpublished(`public mapping of ${port}`);
          },
        });
        break;
      }
      case "logLine": {
        const pattern = new RegExp(spec.logLine!);
        // One attempt follows the stream until the deadline; the backoff is for a stream that fails.
        out.push({ name: `logLine /${spec.logLine}/`, target: label, backoff: API_BACKOFF, attempt: (targets, signal) => matchLogLine(api, targets.get(label), pattern, signal) });
        break;
      }
      case "minReadyWorkers": {
        const wanted = spec.minReadyWorkers!;
        out.push({
          name: `minReadyWorkers ${wanted}`,
          backoff: API_BACKOFF,
          target: label,
          attempt: async (targets, signal) => {
            const workers = targets.get(label)?.workers;
            if (!workers) return { ok: false, detail: "no workers to count" };
            const found = await workers(api, signal);
            return { ok: found.ready >= wanted, detail: `${found.ready} of ${wanted} ready (${found.counts})` };
          },
        });
        break;
      }
    }
  }
  return out;
}

/**
 * Reads the target's log from the start of its current run until a line matches (or the attempt
 * is cut off). The stream is asked from a second before the start, which no reading of a resume
 * point (after it, from it, truncated to seconds) can put past the run's first line, and the
 * earlier lines are skipped: a line of the previous run must not pass the probe.
 */
async function matchLogLine(api: ComputeClient, target: ProbeTarget | undefined, pattern: RegExp, signal: AbortSignal): Promise<Outcome> {
  if (!target?.logs) return { ok: false, detail: "no log to read" };
  const startedAt = target.logs.since ? Date.parse(target.logs.since) : NaN;
  if (Number.isNaN(startedAt)) return unpublished("start time of the current run");
  let read = 0;
  try {
    const since = new Date(startedAt - 1000).toISOString();
    for await (const event of target.logs.stream(api, { since, follow: true, signal })) {
      if (Date.parse(event.ts) < Math.floor(startedAt / 1000) * 1000) continue;
      read += 1;
      if (pattern.test(event.line)) return { ok: true, detail: `matched ${JSON.stringify(redactLogLine(event.line).slice(0, 80))}` };
    }
    // The stream ends quietly when the attempt is cut off at the deadline.
    if (signal.aborted) return { ok: false, detail: `no matching line (${read} lines read)` };
    return { ok: false, detail: `the log ended without a matching line (${read} lines read)` };
  } catch (error) {
    if (signal.aborted) return { ok: false, detail: `no matching line (${read} lines read)` };
    return { ok: false, detail: `log stream: ${(error as Error).message}` };
  }
}

/** The last lines of each target's log, for a failure message: read together, once, within 10 s. */
async function logTails(api: ComputeClient, targets: ProbeTarget[]): Promise<string[]> {
  const signal = AbortSignal.timeout(TAIL_READ_MS);
  const tails = targets.slice(0, 4).map(async (target) => {
    if (!target.logs) return undefined;
    const lines: string[] = [];
    try {
      for await (const event of target.logs.stream(api, { tail: FAILURE_LOG_LINES, follow: false, signal, idleMs: 1500 })) lines.push(event.line);
    } catch (error) {
      if (!signal.aborted) return `Its log (${target.label}) could not be read: ${redactLogLine((error as Error).message)}`;
    }
    // What the service generated for the container (a Jupyter password) is a secret too.
    const quote = (line: string) => (target.secrets ?? []).reduce((text, secret) => text.split(secret).join(REDACTED), redactLogLine(line));
    const last = lines.slice(-FAILURE_LOG_LINES).map((line) => `  | ${quote(line)}`);
    return last.length > 0 ? `Last ${last.length} log lines of ${target.label}:\n${last.join("\n")}` : `The log of ${target.label} is empty.`;
  });
  return (await Promise.all(tails)).filter((tail): tail is string => tail !== undefined);
}

/** Why there is nothing to probe: the resource is not in the state its wait wanted (stopped, failed, ended). */
function notInReadyState<Live extends { id: string; createdAt?: string }>(definition: ResourceDefinition<any, Live>, inputs: object, live: Live): NotReady | undefined {
  const wanted = definition.ready?.(inputs).target;
  const state = definition.states.of(live);
  if (wanted === undefined || state === wanted) return undefined;
  const ended = definition.states.ended.has(state);
  return new NotReady(`${definition.kind} ${(inputs as { name?: string }).name ?? live.id} (${live.id}) is ${state}, not ${wanted}: there is nothing to probe; it is recorded with ready: false, and the next \`pulumi up\` brings it back and probes again`, live, ended);
}

/**
 * Runs every probe of `inputs.readiness` against the definition's targets of `live` until all
 * pass or `deadline` (ms since epoch) passes; then throws `NotReady` with each probe's last
 * outcome and the log tails. Returns the live object last read.
 */
export async function probeReadiness<Live extends { id: string; createdAt?: string }>(
  definition: ResourceDefinition<any, Live>,
  inputs: Props,
  live: Live,
  deadline: number,
): Promise<Live> {
  const name = String(inputs.name);
  const spec = readinessOf(inputs);
  const readiness = definition.readiness;
  if (!spec || !readiness) return live;
  const { kind } = definition;
  const api = client();
  const kinds = probesOf(spec);
  const off = notInReadyState(definition, inputs, live);
  if (off) throw off;
  let current = live;
  let targets = new Map(readiness.targets(current).map((t) => [t.label, t]));
  const several = targets.size > 1;
  const probes = [...targets.keys()].flatMap((label) => probesFor(spec, kinds, label, api));
  const last = new Map<Probe, ProbeOutcome>();

  // Another read of the resource, shared by the probes that found no address, at most every 2 s.
  let rereading: Promise<void> | undefined;
  let rereadAt = 0;
  const reread = () => {
    if (!rereading && Date.now() - rereadAt >= 2000) {
      rereadAt = Date.now();
      rereading = definition
        .family(api)
        .get(current.id)
        .then((fresh) => {
          current = fresh;
          targets = new Map(readiness.targets(fresh).map((t) => [t.label, t]));
          // Stopped, failed or ended meanwhile: nothing will answer; stop now rather than at the deadline.
          stopped ??= notInReadyState(definition, inputs, fresh);
          if (stopped) controller.abort();
        })
        .catch(() => undefined)
        .finally(() => (rereading = undefined));
    }
    return rereading ?? Promise.resolve();
  };

  let stopped: NotReady | undefined;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.min(MAX_TIMER_MS, Math.max(0, deadline - Date.now())));
  const run = async (probe: Probe) => {
    const label = several ? `${probe.target} ${probe.name}` : probe.name;
    for (let attempt = 0; ; attempt++) {
      // Never past the deadline: an attempt gets what is left of it, at most ATTEMPT_TIMEOUT_MS.
      const timeoutMs = Math.max(FINAL_ATTEMPT_MS / 2, Math.min(ATTEMPT_TIMEOUT_MS, deadline - Date.now()));
      const outcome = await probe.attempt(targets, controller.signal, timeoutMs).catch((error: Error): Outcome => ({ ok: false, detail: error.message }));
      const before = last.get(probe);
      if (!before || before.detail !== outcome.detail) report(kind, name, `${label}: ${before ? `${before.detail} → ` : ""}${outcome.detail}`);
      last.set(probe, outcome);
      if (outcome.ok || controller.signal.aborted) return;
      // The last wait leaves time for one more attempt before the deadline.
      const left = deadline - Date.now() - FINAL_ATTEMPT_MS;
      if (left <= 0) return;
      await sleep(Math.min(backoff(attempt, probe.backoff), left), controller.signal).catch(() => undefined);
      if (controller.signal.aborted) return;
      if (outcome.unpublished) await reread();
      if (stopped) return;
    }
  };
  try {
    await Promise.all(probes.map(run));
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  if (stopped) throw stopped;
  const failing = probes.filter((probe) => !last.get(probe)?.ok);
  if (failing.length === 0) return current;

  const seconds = readyTimeoutSeconds(definition, inputs);
  const lines = failing.map((probe) => `  - ${several ? `${probe.target} ` : ""}${probe.name}: ${last.get(probe)?.detail ?? "not tried"}`);
  const notReady = [...new Set(failing.map((probe) => probe.target))].map((label) => targets.get(label)).filter((t): t is ProbeTarget => t !== undefined);
  const tails = await logTails(api, notReady);
  const message = [
    `${kind} ${name} (${current.id}) is ${definition.states.of(current)} but not ready within ${seconds} s; the probes that did not pass:`,
    ...lines,
    ...tails,
    `It is recorded with ready: false; the next \`pulumi up\` probes again without recreating it (raise readyTimeoutSeconds if the service needs longer).`,
  ].join("\n");
  throw new NotReady(message, current, false);
}
