// Prints what a user wants to see after the demo's `pulumi up`: each pod and sandbox with
// status, placement, ssh command and cost, from the stack outputs (passed as JSON).
"use strict";
const Table = require("cli-table3");

const outputs = JSON.parse(process.argv[2] || "{}");
// Colours only on a terminal.
const style = process.stdout.isTTY ? {} : { style: { head: [], border: [] } };
const pods = new Table({ head: ["pod", "id", "status", "placement", "ssh", "$/hr"], ...style });
for (const pod of Object.values(outputs.pods || {})) {
  pods.push([pod.name, pod.id, pod.status, pod.placement, pod.ssh || "-", Number(pod.costPerHour).toFixed(2)]);
}
const sandboxes = new Table({ head: ["sandbox", "id", "state", "data center", "expires", "$/hr"], ...style });
for (const sandbox of outputs.sandboxesByName || []) {
  sandboxes.push([sandbox.name, sandbox.id, sandbox.state, sandbox.dataCenterId, sandbox.expiresAt, Number(sandbox.costPerHour).toFixed(3)]);
}
console.log(`\nPods\n${pods.toString()}\n\nSandboxes\n${sandboxes.toString()}`);
const attempts = outputs.trainerPlacementAttempts || [];
if (attempts.length > 1) {
  console.log(`\nThe trainer was placed after ${attempts.length} candidates:`);
  for (const a of attempts) console.log(`  ${a.gpuTypeId} in ${a.dataCenterId}: ${a.outcome}${a.status ? ` (${a.status})` : ""}`);
}
console.log("\nRun `npm run demo` again: no changes. `npm run demo -- --destroy` removes everything.");
