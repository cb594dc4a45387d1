/**
 * The pod's update/replace table as cases, shared by the suite through the engine
 * (changes.test.ts) and the one that speaks the plugin's protocol (plugin-protocol.test.ts):
 * both faces must decide each change the same way, from the same starting pod, applied in order.
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
