/**
 * The schema gate: this clone's schema.json against the newest recorded release's (the
 * recording's schema.json, test/upgrades/README.md). A breaking change fails here unless
 * CHANGELOG.md's unreleased section lists it under `### Breaking` with how stacks move
 * (provider/native/schema-compare.ts; docs/upgrades.md).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { breakingChanges, unacknowledged, type PackageSchema } from "../../provider/native/schema-compare";

const ROOT = path.join(__dirname, "..", "..");
const RECORDINGS = path.join(__dirname, "recordings");
const json = (file: string) => JSON.parse(readFileSync(file, "utf8")) as PackageSchema & { version?: string };

/** The newest recorded release: the latest build date among the recordings (recording.json). */
function newestRelease(): { name: string; schema: PackageSchema } {
  const builds = readdirSync(RECORDINGS)
    .filter((build) => existsSync(path.join(RECORDINGS, build, "schema.json")))
    .map((build) => {
      const program = readdirSync(path.join(RECORDINGS, build)).find((entry) => existsSync(path.join(RECORDINGS, build, entry, "yaml", "recording.json")))!;
      const { date } = JSON.parse(readFileSync(path.join(RECORDINGS, build, program, "yaml", "recording.json"), "utf8")) as { date: string };
      return { name: build, date };
    })
    .sort((a, b) => a.date.localeCompare(b.date));
  const newest = builds[builds.length - 1]!;
  return { name: newest.name, schema: json(path.join(RECORDINGS, newest.name, "schema.json")) };
}

it("schema.json breaks nothing of the last recorded release's, or CHANGELOG.md says how stacks move", () => {
  const release = newestRelease();
  const changes = breakingChanges(release.schema, json(path.join(ROOT, "schema.json")));
  const changelog = readFileSync(path.join(ROOT, "CHANGELOG.md"), "utf8");
  // Each line names a breaking change against that release that no note allows.
  expect(unacknowledged(changes, changelog).map((change) => `${change.subject}: ${change.change} (since ${release.name})`)).toEqual([]);
});
