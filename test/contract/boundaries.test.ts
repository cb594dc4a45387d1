/**
 * The dependency arrows of the project (CONTRIBUTING.md, folder table): contract ← sdk ← provider/cli and
 * contract ← emulator. The contract is the one home of the API's rules, so it depends on no
 * other folder, and the emulator, a stand-in for the real service, never on the client SDK.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(__dirname, "../..");

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => join(ROOT, folder, file));
}

/** Top-level project folders a file imports from (relative specifiers only; packages are not folders). */
function importedFolders(file: string): Set<string> {
  const text = readFileSync(file, "utf8");
  const out = new Set<string>();
  for (const match of text.matchAll(/(?:from|require\(|import\()\s*["'](\.[^"']*)["']/g)) {
    out.add(relative(ROOT, resolve(dirname(file), match[1])).split(/[\\/]/)[0]);
  }
  return out;
}

test.each([
  ["contract", ["contract"]],
  ["emulator", ["emulator", "contract"]],
])("%s imports only from %j", (folder, allowed) => {
  const strays = sources(folder).flatMap((file) =>
    [...importedFolders(file)].filter((f) => !allowed.includes(f)).map((f) => `${relative(ROOT, file)} -> ${f}/`),
  );
  expect(strays).toEqual([]);
});
