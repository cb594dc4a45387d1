/**
 * The schema gate: this clone's schema.json against the newest recorded release's (the
 * recording's schema.json, test/upgrades/README.md). A breaking change fails here unless a
 * CHANGELOG.md section since that release (`## Unreleased`, or a later version's) lists it under
 * `### Breaking` with how stacks move (provider/native/schema-compare.ts; docs/upgrades.md).
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { breakingChanges, unacknowledged, type PackageSchema } from "../../provider/native/schema-compare";
import { RECORDINGS, recordings } from "./recordings";

const ROOT = path.join(__dirname, "..", "..");
const json = (file: string) => JSON.parse(readFileSync(file, "utf8")) as PackageSchema;

it("schema.json breaks nothing of the last recorded release's, or CHANGELOG.md says how stacks move", () => {
  const newest = recordings().pop()!;
  const release = { name: newest.build, schema: json(path.join(RECORDINGS, newest.build, "schema.json")) };
  const changes = breakingChanges(release.schema, json(path.join(ROOT, "schema.json")));
  const changelog = readFileSync(path.join(ROOT, "CHANGELOG.md"), "utf8");
  // Each line names a breaking change against that release that no note allows.
  expect(unacknowledged(changes, changelog, release.schema.version!).map((change) => `${change.subject}: ${change.change} (since ${release.name})`)).toEqual([]);
});
