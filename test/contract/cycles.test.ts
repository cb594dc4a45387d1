/**
 * No import cycle among the .ts files of a folder (issue 21). Every import counts, type-only ones
 * included (`import type`, `export type … from`, `import("…")` in a type): the rule is about the
 * module graph a reader follows, not about what survives compilation. Relative specifiers are
 * resolved as the compiler does (`./x` → `x.ts` or `x/index.ts`); packages and files outside the
 * folder are not part of its graph (test/contract/boundaries.test.ts guards the arrows between
 * folders).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(__dirname, "../..");

/** The folders whose module graph must be acyclic. */
const FOLDERS = ["emulator", "contract", "sdk", "cli", "policy", "provider"] as const;

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.split(/[\\/]/).includes("node_modules"))
    .map((file) => join(ROOT, folder, file));
}

/** The file a relative specifier names, if it is a .ts file. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ""));
  for (const candidate of [`${base}.ts`, `${base}.d.ts`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Every file of the folder each file imports, type-only and dynamic imports included. */
function importGraph(folder: string): Map<string, string[]> {
  const files = sources(folder);
  const inFolder = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map((ref) => ref.fileName)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolveSpecifier(file, specifier))
      .filter((target): target is string => target !== undefined && inFolder.has(target));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * The graph's cycles, one per strongly connected component (Tarjan), each written as a shortest
 * path from the component's first file back to it (`a.ts -> b.ts -> a.ts`), with the other files
 * of the component.
 */
function cycles(graph: Map<string, string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((component) => shortestCycle(graph, component)).sort();
}

/** A shortest path from the component's first file back to itself, inside the component. */
function shortestCycle(graph: Map<string, string[]>, component: string[]): string {
  const members = new Set(component);
  const start = component[0];
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i];
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(previous.get(path[0])!);
        const names = [...path, start].map((file) => relative(ROOT, file));
        const rest = component.filter((file) => !path.includes(file)).map((file) => relative(ROOT, file));
        return `${names.join(" -> ")}${rest.length > 0 ? ` (the same knot also holds ${rest.join(", ")})` : ""}`;
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  return component.map((file) => relative(ROOT, file)).join(", ");
}

describe("the cycle finder", () => {
  it("finds a cycle through a type-only import and an index.ts, and none in a chain", () => {
    const graph = new Map([
      ["/a.ts", ["/b/index.ts"]],
      ["/b/index.ts", ["/c.ts"]],
      ["/c.ts", ["/a.ts"]],
      ["/d.ts", ["/a.ts"]],
    ]);
    expect(cycles(graph)).toHaveLength(1);
    expect(cycles(new Map([["/a.ts", ["/b.ts"]], ["/b.ts", []]]))).toEqual([]);
  });

  it("counts `import type` and resolves a folder to its index.ts", () => {
    const file = join(ROOT, "emulator", "probe.ts");
    const refs = ts.preProcessFile('import type { X } from "./pods";\nexport type { Y } from "./module";\n', true, true).importedFiles;
    expect(refs.map((r) => r.fileName)).toEqual(["./pods", "./module"]);
    expect(resolveSpecifier(file, "../contract")).toBe(join(ROOT, "contract", "index.ts"));
  });
});

test.each(FOLDERS)("%s/ has no import cycle", (folder) => {
  expect(cycles(importGraph(folder))).toEqual([]);
});

/** Every project file `entries` load, following relative imports across folders (type-only ones too). */
function closure(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const ref of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
      const target = ref.fileName.startsWith(".") ? resolveSpecifier(file, ref.fileName) : undefined;
      if (target && !seen.has(target)) queue.push(target);
    }
  }
  return seen;
}

const under = (folder: string) => (file: string) => relative(ROOT, file).startsWith(`${folder}/`);

// Definitions are leaves (provider/resources/definition.ts): the runtime calls them with what they need.
test("provider/resources/ imports nothing from provider/runtime/", () => {
  const graph = importGraph("provider");
  const arrows = [...graph].filter(([file]) => under("provider/resources")(file)).flatMap(([file, targets]) => targets.filter(under("provider/runtime")).map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`));
  expect(arrows).toEqual([]);
  // Nor by the package's name for it (what the serialized providers load: pulumi-compute/provider-runtime).
  expect(codeLines(["provider/resources"], /(from|require\()\s*["'][^"']*runtime/)).toEqual([]);
});

// The policy pack reads estimates from the definitions: it must not load the engine that runs them.
test("the policy pack's import closure holds no file of provider/runtime/", () => {
  const loaded = [...closure(sources("policy"))].filter(under("provider/runtime")).map((file) => relative(ROOT, file));
  expect(loaded).toEqual([]);
  // It does read the registry (the check above would pass vacuously otherwise).
  expect([...closure(sources("policy"))].some(under("provider/resources"))).toBe(true);
});

/** The lines of `folders`' .ts files that match `pattern`, comments left out. */
function codeLines(folders: string[], pattern: RegExp): string[] {
  return folders.flatMap((folder) =>
    sources(folder).flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => pattern.test(line) && !/^\s*(\*|\/\/|\/\*)/.test(line))
        .map((line) => `${relative(ROOT, file)}: ${line.trim()}`),
    ),
  );
}

// Types say what the code does: a cast that silences the compiler is a place it no longer checks
// (issue 38 brought provider/ from 44 to 9). A new one needs a reason good enough to raise this.
test("provider/ holds at most 10 casts through unknown or never", () => {
  expect(codeLines(["provider"], /as unknown as|as never\b/).length).toBeLessThanOrEqual(10);
});

// Process-wide state is shared by every copy of a module (provider/runtime/process-memory.ts says
// why the provider needs it): one store in provider/, and the SDK's client and rate-limit registries.
test("process-wide stores on globalThis: one in provider/, two in sdk/", () => {
  expect(codeLines(["provider", "sdk", "contract", "cli", "policy"], /globalThis/).map((line) => line.split(":")[0]).sort()).toEqual(["provider/runtime/process-memory.ts", "sdk/client.ts", "sdk/rate-limit.ts"]);
});
