/**
 * Jest's global set-up (jest.config.js): makes `dist/` current once, before any suite, because
 * the CLI, the `compute-emulator` binary and provider serialization suites run the built
 * package as a user would. `npm test` has just built (scripts/setup.sh), so there this is only
 * the freshness check; a bare `npx jest ...` after editing a source gets one build here instead
 * of one per worker.
 *
 * Fresh means: every file tsc would emit for tsconfig.json exists and is no older than its
 * source. The TypeScript API names those files, so a new or moved source is covered without a
 * list kept here. The check takes milliseconds; a build takes about 5 s on a 2-core machine.
 */
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import * as ts from "typescript";

const ROOT = resolve(__dirname, "..", "..");
const TSCONFIG = join(ROOT, "tsconfig.json");

function mtime(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The first emitted file that is missing or older than its source, or undefined when all are current. */
export function staleOutput(): string | undefined {
  const config = ts.getParsedCommandLineOfConfigFile(TSCONFIG, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    },
  });
  if (!config) throw new Error(`cannot read ${TSCONFIG}`);
  for (const source of config.fileNames) {
    const sourceTime = mtime(source)!;
    for (const output of ts.getOutputFileNames(config, source, !ts.sys.useCaseSensitiveFileNames)) {
      const outputTime = mtime(output);
      if (outputTime === undefined || outputTime < sourceTime) return output;
    }
  }
  // tsc also copies the JSON files the sources import (the emulator's fixtures), which the
  // config's file list leaves out; a JSON file nothing imports has no copy and is passed over.
  const { outDir = join(ROOT, "dist"), rootDir = ROOT } = config.options;
  for (const json of ts.sys.readDirectory(ROOT, [".json"], config.raw?.exclude, config.raw?.include)) {
    const output = join(outDir, relative(rootDir, json));
    const outputTime = mtime(output);
    if (outputTime !== undefined && outputTime < mtime(json)!) return output;
  }
  return undefined;
}

export default function buildDist(): void {
  const stale = staleOutput();
  if (stale === undefined) return;
  process.stderr.write(`\n[test set-up] ${stale} is missing or older than its source: building dist/ (tsc -p tsconfig.json)\n`);
  const tsc = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", TSCONFIG], { cwd: ROOT, encoding: "utf8" });
  // tsc emits despite type errors; `npm test` and `npx tsc -p tsconfig.test.json --noEmit` are
  // where type errors fail. The suites only need the emitted files, checked again here.
  const still = staleOutput();
  if (still !== undefined) throw new Error(`building dist/ left ${still} missing or stale:\n${tsc.stdout}${tsc.stderr}${tsc.error ?? ""}`);
  if (tsc.status !== 0) process.stderr.write(`[test set-up] tsc reported errors; dist/ was emitted anyway:\n${head(`${tsc.stdout}${tsc.stderr}`, 10)}`);
}

function head(text: string, lines: number): string {
  const all = text.trimEnd().split("\n");
  return `${all.slice(0, lines).join("\n")}\n${all.length > lines ? `... ${all.length - lines} more lines: npx tsc -p tsconfig.json\n` : ""}`;
}
