/**
 * The recorded stacks of this folder (README.md), as the upgrade suites and the schema gate read
 * them: one entry per build, program and face, each with what record-upgrade.sh wrote about it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { compareVersions } from "../../provider/native/schema-compare";

export type Face = "typescript" | "yaml";

/** What record-upgrade.sh wrote beside a recording. */
export interface RecordingMeta {
  commit: string;
  date: string;
  version: string;
  stack: string;
  baseUrl: string;
  passphrase: string;
}

export interface Recording {
  /** `<version>-<commit>/<program>`: the build that made it and what it ran. */
  name: string;
  /** `<version>-<commit>`: the build's folder, which holds its schema.json. */
  build: string;
  face: Face;
  dir: string;
  meta: RecordingMeta;
}

export const RECORDINGS = path.join(__dirname, "recordings");

/** Oldest build first: by version, then by the build's date. */
function byBuild(a: Recording, b: Recording): number {
  return compareVersions(a.meta.version, b.meta.version) || a.meta.date.localeCompare(b.meta.date) || a.name.localeCompare(b.name);
}

/** Every recording (of `face`, when given), oldest build first. */
export function recordings(face?: Face): Recording[] {
  const found: Recording[] = [];
  for (const build of readdirSync(RECORDINGS)) {
    if (!existsSync(path.join(RECORDINGS, build, "schema.json"))) continue;
    for (const program of readdirSync(path.join(RECORDINGS, build))) {
      for (const each of face ? [face] : (["typescript", "yaml"] as const)) {
        const dir = path.join(RECORDINGS, build, program, each);
        if (!existsSync(path.join(dir, "recording.json"))) continue;
        found.push({ name: `${build}/${program}`, build, face: each, dir, meta: JSON.parse(readFileSync(path.join(dir, "recording.json"), "utf8")) as RecordingMeta });
      }
    }
  }
  return found.sort(byBuild);
}
