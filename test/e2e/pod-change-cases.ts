/**
 * The pod's update/replace table as cases, shared by the suite that speaks the plugin's protocol
 * (plugin-protocol.test.ts: every case, in both answer shapes) and the one through the engine
 * (changes.test.ts: the subset `THROUGH_THE_ENGINE` names). Each suite starts from `START_POD`
 * and applies its cases in order, each on top of the previous.
 */
import { GPU } from "../helpers/fixtures";

type Change = Record<string, unknown>;

/** The pod both suites start from. */
export const START_POD: Change = { image: "app:1", gpu: { id: GPU.a5000 }, env: { A: "1" }, ports: ["22/tcp"] };

/** Changes made in place: the same pod, updated. */
export const IN_PLACE_CHANGES: Array<[string, Change]> = [
  ["name", { name: "svc-renamed" }],
  ["locked", { locked: true }],
  ["image", { image: "app:2" }],
  ["env", { env: { A: "2", B: "3" } }],
  ["ports", { ports: ["22/tcp", "8888/http"] }],
  ["cmd", { cmd: ["python", "serve.py"] }],
  ["disk", { disk: 40 }],
  ["globalNetworking", { globalNetworking: true }],
  ["desiredState STOPPED", { locked: false, desiredState: "STOPPED" }],
  ["desiredState RUNNING", { desiredState: "RUNNING" }],
];

/** Changes that replace the pod: a new id, the old one gone. */
export const REPLACING_CHANGES: Array<[string, Change]> = [
  ["gpu.id", { gpu: { id: GPU.rtx4090 } }],
  ["gpu.count", { gpu: { id: GPU.rtx4090, count: 2 } }],
  ["startSsh", { startSsh: true }],
  ["cloud", { cloud: "COMMUNITY" }],
  ["mounts (a new kind)", { mounts: { network: [{ volumeId: "vol_dev_tx", path: "/data" }] }, dataCenterIds: ["US-TX-3"], cloud: "SECURE" }],
];

/** The status the pod settles in after an in-place change. */
export const statusAfter = (change: Change) => (change.desiredState === "STOPPED" ? "EXITED" : "RUNNING");

/**
 * The cases changes.test.ts runs through the engine, in the tables' order. Which fields changed
 * is the provider's diff, proven for every case by plugin-protocol.test.ts; what the engine adds
 * is the same for every field: it turns that diff into an update step or a replace step (a
 * replacement's create before its delete), and records the result. So a few cases show it: a
 * rename, a stop and a start (the status each settles in), and two replacements (one of the
 * GPU, one that brings a new kind of input and a new placement with it). Applied in this order,
 * each still has the outcome its table gives it.
 */
export const THROUGH_THE_ENGINE: readonly string[] = ["name", "desiredState STOPPED", "desiredState RUNNING", "gpu.id", "mounts (a new kind)"];

for (const name of THROUGH_THE_ENGINE) {
  if (![...IN_PLACE_CHANGES, ...REPLACING_CHANGES].some(([field]) => field === name)) throw new Error(`pod-change-cases.ts: THROUGH_THE_ENGINE names no case "${name}"`);
}

/** The cases of `table` the engine suite runs. */
export const throughTheEngine = (table: Array<[string, Change]>) => table.filter(([field]) => THROUGH_THE_ENGINE.includes(field));
