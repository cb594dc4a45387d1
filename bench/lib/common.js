"use strict";
/** Small helpers shared by the scenarios: emulator processes, /proc readings, request logs. */
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const REPO_ROOT = path.resolve(__dirname, "../..");
const dist = (p) => path.join(REPO_ROOT, "dist", p);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Rounds for the record, so the JSON does not carry noise digits. */
const round = (value, digits = 2) => (value === undefined || value === null ? value : Number(value.toFixed(digits)));

function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}

/** Stage durations of the fleet scenarios (issue #7): 2 s provisioning, 2 s starting, 2 s sandbox creating. */
const FLEET_TIMINGS = { podProvisioningMs: 2000, podStartingMs: 2000, sandboxCreatingMs: 2000 };
const ZERO_TIMINGS = { podProvisioningMs: 0, podStartingMs: 0, sandboxCreatingMs: 0 };
/** What provisioning must take whatever the tool: provisioning + starting of one pod. */
const UNAVOIDABLE_SECONDS = (FLEET_TIMINGS.podProvisioningMs + FLEET_TIMINGS.podStartingMs) / 1000;

/** Plenty of room for CPU pods and sandboxes in the default fixture's US-TX-3 pool. */
async function raiseCpuCapacity(control, vcpus = 4096) {
  await control.setCapacity({ dataCenterId: "US-TX-3", cpuFlavorId: "cpu3c", available: vcpus });
}

/** Emulator processes still running, ended if the bench exits early. */
const children = new Set();
process.on("exit", () => {
  for (const child of children) child.kill("SIGTERM");
});

/**
 * `node dist/emulator/bin.js` as a process of its own; resolves once it listens, with what its
 * `--print json` line says (url, apiKey, adminToken, pid, ...). Its start-up lines go to stderr,
 * kept only to explain an early exit.
 */
function startEmulatorProcess(args = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [dist("emulator/bin.js"), "--port", "0", "--print", "json", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    child.once("exit", () => children.delete(child));
    let text = "";
    let stderr = "";
    const onExit = (code) => reject(new Error(`emulator exited (${code}) before listening: ${stderr}`));
    child.once("exit", onExit);
    const onStderr = (chunk) => (stderr += chunk);
    child.stderr.on("data", onStderr);
    child.stdout.on("data", (chunk) => {
      text += chunk;
      const newline = text.indexOf("\n");
      if (newline < 0) return;
      child.off("exit", onExit);
      child.stdout.removeAllListeners("data");
      child.stdout.resume();
      child.stderr.off("data", onStderr);
      child.stderr.resume();
      const ready = JSON.parse(text.slice(0, newline));
      resolve({
        ...ready,
        close: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    });
  });
}

/** VmRSS and VmHWM (peak) of a process in MB, or undefined once it is gone. */
function memoryOf(pid) {
  let status;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return undefined;
  }
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rssMb: kb("VmRSS") / 1024, hwmMb: kb("VmHWM") / 1024 };
}

/** The parent pid from /proc/<pid>/stat (the command name may hold spaces and parentheses). */
function parentOf(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

function isDescendant(pid, ancestor) {
  for (let p = pid, hops = 0; p && p > 1 && hops < 64; p = parentOf(p), hops++) {
    if (p === ancestor) return true;
  }
  return false;
}

/**
 * Pids of this process's descendants whose command line contains `needle` (other work on the
 * machine, such as a CI run of the same project, is never counted).
 */
function findProcesses(needle) {
  const pids = [];
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
function operationOf(entry) {
  const p = entry.path.replace(/^(\/v2\/(?:pods|sandboxes))\/[^/]+/, "$1/{id}");
  return `${entry.method} ${p}`;
}

/** Counts of a request log by operation, keys sorted (deterministic JSON). */
function countByOperation(requests) {
  const counts = {};
  for (const entry of requests) counts[operationOf(entry)] = (counts[operationOf(entry)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

/** Total of the operations whose key starts with one of the prefixes. */
function sumOps(counts, test) {
  return Object.entries(counts).reduce((sum, [op, n]) => (test(op) ? sum + n : sum), 0);
}

module.exports = {
  REPO_ROOT,
  dist,
  sleep,
  median,
  round,
  log,
  FLEET_TIMINGS,
  ZERO_TIMINGS,
  UNAVOIDABLE_SECONDS,
  raiseCpuCapacity,
  startEmulatorProcess,
  memoryOf,
  findProcesses,
  operationOf,
  countByOperation,
  sumOps,
};
