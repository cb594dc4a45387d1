// Prints what a user wants to see after the demo's `pulumi up`: each pod and sandbox with
// status, placement, ssh command and cost; the environment they are made from (registry
// credential, template, network volume, SSH key); and the serverless endpoint. Reads the
// stack outputs (passed as JSON).
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
// One row per environment resource: what it is, its id, and what matters about it.
const env = outputs.environment || {};
const environment = new Table({ head: ["resource", "name", "id", "details"], ...style });
if (env.registry) environment.push(["registry credential", env.registry.name, env.registry.id, "username and password write-only (secrets in the state)"]);
if (env.template) environment.push(["template", env.template.name, env.template.id, "trainer and notebook are made from it"]);
if (env.volume) environment.push(["network volume", env.volume.name, env.volume.id, `${env.volume.sizeGb} GB in ${env.volume.dataCenterId}, mounted by the trainer`]);
if (env.sshKey) environment.push(["ssh key", "-", env.sshKey.fingerprint, `${env.sshKey.type}, added beside the account's own keys`]);
const endpoint = outputs.endpoint;
const endpoints = new Table({ head: ["endpoint", "id", "image", "workers", "runSync URL"], ...style });
if (endpoint) endpoints.push([endpoint.name, endpoint.id, endpoint.image || "-", endpoint.workers, endpoint.runSync || "-"]);

console.log(`\nEnvironment\n${environment.toString()}`);
console.log(`\nPods\n${pods.toString()}\n\nSandboxes\n${sandboxes.toString()}`);
console.log(`\nServerless endpoint (from the Hub)\n${endpoints.toString()}`);
const attempts = outputs.trainerPlacementAttempts || [];
if (attempts.length > 1) {
  console.log(`\nThe trainer was placed after ${attempts.length} candidates:`);
  for (const a of attempts) console.log(`  ${a.gpuTypeId} in ${a.dataCenterId}: ${a.outcome}${a.status ? ` (${a.status})` : ""}`);
}
console.log("\nRun `npm run demo` again: no changes. `npm run demo -- --destroy` removes everything, and only what the demo made.");
