/** Small helpers shared by the scenarios: emulator processes, /proc readings, request logs. */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { EmulatorControl, LoggedRequest, Timings } from "../../emulator";
import type { EmulatorReady } from "../../emulator/options";
import { RESOURCES } from "../../provider/resources";
import { dynamicToken, nativeToken, type ResourceDefinition } from "../../provider/resources/definition";
import { REPO_ROOT } from "../../scripts/lib/root";

export { REPO_ROOT };

/** A file of the built package (`dist/`), which scripts/bench.sh has just built. */
export const dist = (p: string): string => path.join(REPO_ROOT, "dist", p);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Rounds for the record, so the JSON does not carry noise digits. */
export function round(value: number, digits?: number): number;
export function round(value: number | undefined, digits?: number): number | undefined;
export function round(value: number | undefined, digits = 2): number | undefined {
  return value === undefined || value === null ? value : Number(value.toFixed(digits));
}

export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** The registry's definition (provider/resources) of a kind of resource (`pod`). */
export function resourceOfKind(kind: string): ResourceDefinition {
  const definition = RESOURCES.find((d) => d.kind === kind);
  if (!definition) throw new Error(`no resource of kind ${kind} in the registry (provider/resources/index.ts)`);
  return definition;
}

/** What the fleet program declares (bench/programs/fleet): pods and sandboxes, as the registry defines them. */
export const FLEET_RESOURCES = { pod: resourceOfKind("pod"), sandbox: resourceOfKind("sandbox") };

/**
 * The type tokens of the fleet's resources in a stack's state, by the face that serves them: the
 * dynamic classes (`pulumi-nodejs:dynamic/compute:Pod`) or the native plugin (`compute:index:Pod`).
 * Derived from the registry, so a renamed token cannot leave a scenario counting nothing.
 */
export function fleetTypes(face: "dynamic" | "native"): string[] {
  return Object.values(FLEET_RESOURCES).map(face === "native" ? nativeToken : dynamicToken);
}

/** Stage durations of the fleet scenarios (issue #7): 2 s provisioning, 2 s starting, 2 s sandbox creating. */
export const FLEET_TIMINGS: Partial<Timings> = { podProvisioningMs: 2000, podStartingMs: 2000, sandboxCreatingMs: 2000 };
export const ZERO_TIMINGS: Partial<Timings> = { podProvisioningMs: 0, podStartingMs: 0, sandboxCreatingMs: 0 };
/** What provisioning must take whatever the tool: provisioning + starting of one pod. */
export const UNAVOIDABLE_SECONDS = (FLEET_TIMINGS.podProvisioningMs! + FLEET_TIMINGS.podStartingMs!) / 1000;

/** Plenty of room for CPU pods and sandboxes in the default fixture's US-TX-3 pool. */
export async function raiseCpuCapacity(control: EmulatorControl, vcpus = 4096): Promise<void> {
  await control.setCapacity({ dataCenterId: "US-TX-3", cpuFlavorId: "cpu3c", available: vcpus });
}

/** Emulator processes still running, ended if the bench exits early. */
const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of children) child.kill("SIGTERM");
});

export interface EmulatorProcess extends EmulatorReady {
  close(): Promise<void>;
}

/**
 * `node dist/emulator/bin.js` as a process of its own; resolves once it listens, with what its
 * `--print json` line says (url, apiKey, adminToken, pid, ...). Its start-up lines go to stderr,
 * kept only to explain an early exit.
 */
export function startEmulatorProcess(args: string[] = []): Promise<EmulatorProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [dist("emulator/bin.js"), "--port", "0", "--print", "json", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    child.once("exit", () => children.delete(child));
    let text = "";
    let stderr = "";
    const onExit = (code: number | null) => reject(new Error(`emulator exited (${code}) before listening: ${stderr}`));
    child.once("exit", onExit);
    const onStderr = (chunk: Buffer) => (stderr += chunk);
    child.stderr.on("data", onStderr);
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk;
      const newline = text.indexOf("\n");
      if (newline < 0) return;
      child.off("exit", onExit);
      child.stdout.removeAllListeners("data");
      child.stdout.resume();
      child.stderr.off("data", onStderr);
      child.stderr.resume();
      const ready = JSON.parse(text.slice(0, newline)) as EmulatorReady;
      resolve({
        ...ready,
        close: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    });
  });
}

export interface Memory {
  rssMb: number;
  hwmMb: number;
}

/** VmRSS and VmHWM (peak) of a process in MB, or undefined once it is gone. */
export function memoryOf(pid: number): Memory | undefined {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return undefined;
  }
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rssMb: kb("VmRSS") / 1024, hwmMb: kb("VmHWM") / 1024 };
}

/** The peak memory one process reached while sampled, and the CPU time it had used at the last sample. */
export interface Peak {
  rssMb: number;
  hwmMb: number;
  cpuSeconds: number;
  samples: number;
}

/** User + system CPU seconds a process has used so far (/proc/<pid>/stat), or undefined once it is gone. */
export function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return undefined;
  }
}

/**
 * Samples, every `intervalMs`, VmRSS and VmHWM (the kernel's own peak) of each process that
 * `pids` names (a function: processes come and go), until `stop`, which returns one peak per
 * process seen.
 */
export function sampler(pids: string | (() => number[]), intervalMs = 100): { stop(): Peak[] } {
  const list = typeof pids === "string" ? () => findProcesses(pids) : pids;
  const peaks = new Map<number, Peak>();
  const sample = () => {
    for (const pid of list()) {
      const mem = memoryOf(pid);
      if (!mem) continue;
      const peak = peaks.get(pid) ?? { rssMb: 0, hwmMb: 0, cpuSeconds: 0, samples: 0 };
      peak.rssMb = Math.max(peak.rssMb, mem.rssMb);
      peak.hwmMb = Math.max(peak.hwmMb, mem.hwmMb);
      peak.cpuSeconds = Math.max(peak.cpuSeconds, cpuSecondsOf(pid) ?? 0);
      peak.samples += 1;
      peaks.set(pid, peak);
    }
  };
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return [...peaks.values()];
    },
  };
}

/** The highest of the peaks, in MB (undefined when none was seen). */
export function highest(peaks: Peak[]): number | undefined {
  return peaks.length ? Math.max(...peaks.map((p) => Math.max(p.rssMb, p.hwmMb))) : undefined;
}

/** The parent pid from /proc/<pid>/stat (the command name may hold spaces and parentheses). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

function isDescendant(pid: number, ancestor: number): boolean {
  for (let p: number | undefined = pid, hops = 0; p && p > 1 && hops < 64; p = parentOf(p), hops++) {
    if (p === ancestor) return true;
  }
  return false;
}

/**
 * Pids of this process's descendants whose command line contains `needle` (other work on the
 * machine, such as a CI run of the same project, is never counted).
 */
export function findProcesses(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
      if (cmdline.includes(needle) && isDescendant(pid, process.pid)) pids.push(pid);
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/**
 * The operation of a request log entry: `GET /v2/pods/{id}`, `POST /v2/sandboxes`, ... (ids
 * replaced so entries group by operation).
 */
export function operationOf(entry: Pick<LoggedRequest, "method" | "path">): string {
  const p = entry.path.replace(/^(\/v2\/(?:pods|sandboxes|clusters))\/[^/]+/, "$1/{id}");
  return `${entry.method} ${p}`;
}

/** Counts of a request log by operation, keys sorted (deterministic JSON). */
export function countByOperation(requests: Array<Pick<LoggedRequest, "method" | "path">>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of requests) counts[operationOf(entry)] = (counts[operationOf(entry)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

/** Total of the operations whose key passes `test`. */
export function sumOps(counts: Record<string, number>, test: (operation: string) => boolean): number {
  return Object.entries(counts).reduce((sum, [op, n]) => (test(op) ? sum + n : sum), 0);
}

/** One row of the printed table (and of results/latest.json's `table`). */
export interface Row {
  scenario: string;
  figure: string;
  value: string;
  reference?: string;
  ratio?: number | null;
  goal?: string;
  /** null: recorded, no goal. */
  met: boolean | null;
}

/** What a scenario returns: its part of the results file, and its rows. */
export interface ScenarioResult {
  results: Record<string, unknown>;
  rows: Row[];
}

/** CPU seconds the sampled processes used in all (each as of its last sample). */
export function cpuOf(peaks: Peak[]): number {
  return peaks.reduce((sum, p) => sum + p.cpuSeconds, 0);
}
