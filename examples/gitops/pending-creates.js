#!/usr/bin/env node
// Settles the pending creates an interrupted `up` left in a stack's state, once a later `up` has
// made their resources again: `node pending-creates.js <up start, ISO 8601> < exported.json > settled.json`.
//
// Why: the engine keeps a pending create in the state for good (Pulumi 3.248,
// backend/snapshot.go: "these must require user intervention"), so after the next `up` brought
// the interrupted create's pod under the stack (the provider adopts it by its owner mark,
// docs/team-backend.md), every later `up` still warns about it, and `pulumi refresh` offers to
// import or clear it. A pending create is done with when the `up` that started at the given
// time created its resource (same URN, `created` since then): that create adopted what the
// interrupted one made, or terminated it as a stray. Any other is kept, and reported: the
// program no longer declares it, or a replacement was not made again, so what the interrupted
// run created may be running outside the stack.
//
// Reads `pulumi stack export` output; writes it back without the settled pending creates and
// exits 0, or exits 3 (writing nothing) when there is nothing to settle. What it does goes to
// stderr.
"use strict";

const NOTHING_TO_SETTLE = 3;

/** The deployment without the pending creates the `up` started at `since` made again, and what was kept. */
function settle(exported, since) {
  const deployment = exported.deployment ?? {};
  const start = Date.parse(since);
  if (Number.isNaN(start)) throw new Error(`not a time: ${JSON.stringify(since)} (expected ISO 8601, the start of the up)`);
  const madeAgain = new Set((deployment.resources ?? []).filter((resource) => resource.created && Date.parse(resource.created) >= start).map((resource) => resource.urn));
  const pending = deployment.pending_operations ?? [];
  const superseded = pending.filter((op) => op.type === "creating" && madeAgain.has(op.resource?.urn));
  const kept = pending.filter((op) => !superseded.includes(op));
  return {
    exported: { ...exported, deployment: { ...deployment, pending_operations: kept } },
    superseded: superseded.map((op) => op.resource.urn),
    kept: kept.filter((op) => op.type === "creating").map((op) => op.resource?.urn),
  };
}

module.exports = { settle, NOTHING_TO_SETTLE };

if (require.main === module) {
  const { exported, superseded, kept } = settle(JSON.parse(require("node:fs").readFileSync(0, "utf8")), process.argv[2]);
  for (const urn of kept) {
    process.stderr.write(
      `warning: ${urn} still has a pending create from an interrupted run that this up did not make again: ` +
        "what that run created may be running outside the stack (`compute ps --stack <project>/<stack>` lists it)\n",
    );
  }
  if (superseded.length === 0) process.exit(NOTHING_TO_SETTLE);
  for (const urn of superseded) process.stderr.write(`settled the pending create of ${urn}: this up made it again\n`);
  process.stdout.write(`${JSON.stringify(exported, null, 2)}\n`);
}
