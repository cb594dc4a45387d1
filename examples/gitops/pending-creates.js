#!/usr/bin/env node
// Settles the pending creates an interrupted `up` left in a stack's state, once a later `up` has
// made their resources again and the service holds nothing of the stack that the state does not:
//
//   node pending-creates.js <up start, ISO 8601> <live.json> < exported.json > settled.json
//   node pending-creates.js --list < exported.json     # the URNs of its pending creates
//
// (`exported.json`: `pulumi stack export`; `live.json`: `compute ps --stack <project>/<stack>
// --json`, what the service holds under the stack's owner marks.)
//
// Why: the engine keeps a pending create in the state for good (Pulumi 3.248,
// backend/snapshot.go: "these must require user intervention"), so after the next `up` brought
// the interrupted create's pod under the stack (the provider adopts it by its owner mark,
// docs/team-backend.md), every later `up` still warns about it. A pending create is done with
// when all of these hold:
// - it is one of this provider's resources (another provider's would simply be created again,
//   and its first copy leaked);
// - the `up` that started at the given time created its resource (same URN, `created` since
//   then): that create adopted what the interrupted one made, or terminated it as a stray;
// - the service holds nothing with the stack's owner mark that the state does not hold: a
//   volume left as a stray (kept, never deleted), a stray whose delete failed, a runner whose
//   marks differ. If it holds any, every pending create is kept, and the ids are named.
// Any pending create kept is reported: what the interrupted run created may be running outside
// the stack.
//
// Writes the deployment back without the settled pending creates and exits 0, or exits 3
// (writing nothing) when there is nothing to settle. What it does goes to stderr.
"use strict";

const NOTHING_TO_SETTLE = 3;

/** Type tokens of this provider's resources: the TypeScript classes' and the native plugin's. */
const OURS = /^(pulumi-nodejs:dynamic\/compute:|compute:index:)/;

/** The state's pending creates. */
const pendingCreates = (deployment) => (deployment.pending_operations ?? []).filter((op) => op.type === "creating");

/** Ids `compute ps --json` lists, of every kind. */
function liveIds(live) {
  return Object.values(live)
    .filter(Array.isArray)
    .flat()
    .map((row) => row.id)
    .filter((id) => typeof id === "string" && id !== "");
}

/**
 * The deployment without the pending creates it may forget; what was settled, what was kept,
 * and the live ids of the stack that the state does not hold.
 */
function settle(exported, since, live) {
  const deployment = exported.deployment ?? {};
  const start = Date.parse(since);
  if (Number.isNaN(start)) throw new Error(`not a time: ${JSON.stringify(since)} (expected ISO 8601, the start of the up)`);
  const resources = deployment.resources ?? [];
  const held = new Set(resources.map((resource) => resource.id).filter(Boolean));
  const unknown = liveIds(live).filter((id) => !held.has(id));
  const madeAgain = new Set(resources.filter((resource) => resource.created && Date.parse(resource.created) >= start).map((resource) => resource.urn));
  const pending = deployment.pending_operations ?? [];
  const settled = unknown.length > 0 ? [] : pendingCreates(deployment).filter((op) => OURS.test(op.resource?.type ?? "") && madeAgain.has(op.resource?.urn));
  const kept = pending.filter((op) => !settled.includes(op));
  return {
    exported: { ...exported, deployment: { ...deployment, pending_operations: kept } },
    settled: settled.map((op) => op.resource.urn),
    kept: pendingCreates({ pending_operations: kept }).map((op) => op.resource?.urn),
    unknown,
  };
}

module.exports = { settle, NOTHING_TO_SETTLE };

if (require.main === module) {
  const fs = require("node:fs");
  const [since, liveFile] = process.argv.slice(2);
  if (since === "--list") {
    for (const op of pendingCreates(JSON.parse(fs.readFileSync(0, "utf8")).deployment ?? {})) console.log(op.resource?.urn);
    process.exit(0);
  }
  if (!since || !liveFile) {
    process.stderr.write("usage: node pending-creates.js <up start, ISO 8601> <compute ps --json output> < exported.json\n");
    process.exit(2);
  }
  const { exported, settled, kept, unknown } = settle(JSON.parse(fs.readFileSync(0, "utf8")), since, JSON.parse(fs.readFileSync(liveFile, "utf8")));
  if (unknown.length > 0) {
    process.stderr.write(`warning: the service holds ${unknown.join(", ")} with this stack's owner mark, and the state does not: pending creates kept (\`compute ps --stack <project>/<stack>\` shows them)\n`);
  }
  for (const urn of kept) {
    process.stderr.write(`warning: ${urn} still has a pending create from an interrupted run: what that run created may be running outside the stack\n`);
  }
  if (settled.length === 0) process.exit(NOTHING_TO_SETTLE);
  for (const urn of settled) process.stderr.write(`settled the pending create of ${urn}: this up made it again\n`);
  process.stdout.write(`${JSON.stringify(exported, null, 2)}\n`);
}
