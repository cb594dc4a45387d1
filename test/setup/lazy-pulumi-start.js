"use strict";
/**
 * Preloaded (`NODE_OPTIONS=--require`, set by jest's global set-up, test/setup/global.ts) into
 * the Node.js processes of a test run: the TypeScript programs and dynamic providers the engine
 * starts, the policy packs, the plugins. It defers two modules that `@pulumi/pulumi` loads at
 * start and uses on a few paths only:
 *
 * - `runtime/closure/codePaths.js` requires `@npmcli/arborist` (with pacote, sigstore and the
 *   rest of npm's install stack): about 0.45 CPU-seconds, for `computeCodePaths`, which only
 *   packaging a function with its node_modules (a cloud function's archive) calls;
 * - `typescript-shim.js` requires `typescript` (about 0.3 CPU-seconds), for the closure
 *   serializer's parse of a function's text, which a dynamic provider host never runs.
 *
 * Pulumi measured and removed the same cost once (pulumi/pulumi#10185, "Avoid importing
 * typescript unless necessary"); in 3.248 both come back through `runtime/index.js`. Each module
 * is loaded, as it was, on the first use of what it exports: the code that runs is the same,
 * only when it is loaded moves. Measured on the end-to-end suite `basic` (the worker's and its
 * children's CPU): 36 CPU-seconds without, 26-30 with (docs/benchmarks.md, "The test run's own
 * time"). The benchmarks do not load it: their figures are what a user's machine does.
 *
 * If a Pulumi release moves these files, nothing is deferred and the run is only slower;
 * test/setup/lazy-pulumi-start.test.ts fails then, naming the file to update.
 */
const Module = require("node:module");
const path = require("node:path");

const PULUMI = `${path.sep}node_modules${path.sep}@pulumi${path.sep}pulumi${path.sep}`;

/**
 * A deferred module (its path inside @pulumi/pulumi) → the exports its importer reads while it
 * loads, all functions: each is a stand-in that loads the module when first called.
 */
const DEFERRED = new Map([
  [path.join("runtime", "closure", "codePaths.js"), ["computeCodePaths"]],
  ["typescript-shim.js", []],
]);

const load = Module._load;

Module._load = function loadDeferred(request, parent, isMain) {
  const importer = parent && parent.filename;
  if (!importer || !importer.includes(PULUMI) || !request.startsWith(".")) return load.apply(this, arguments);
  const resolved = Module._resolveFilename(request, parent, isMain);
  const inside = resolved.slice(resolved.lastIndexOf(PULUMI) + PULUMI.length);
  const readAtLoad = DEFERRED.get(inside);
  if (!readAtLoad || Module._cache[resolved]) return load.apply(this, arguments);

  let real;
  const exports = () => (real ??= load.call(Module, request, parent, isMain));
  const standIn = (name) =>
    function deferredExport(...args) {
      const value = exports()[name];
      if (typeof value !== "function") throw new Error(`test/setup/lazy-pulumi-start.js: ${inside} no longer exports a function ${name}; update DEFERRED`);
      return value.apply(this, args);
    };
  return new Proxy(
    {},
    {
      get: (_target, key) => (real === undefined && readAtLoad.includes(key) ? standIn(key) : exports()[key]),
      set: (_target, key, value) => Reflect.set(exports(), key, value),
      has: (_target, key) => key in exports(),
      ownKeys: () => Reflect.ownKeys(exports()),
      getOwnPropertyDescriptor: (_target, key) => {
        const descriptor = Reflect.getOwnPropertyDescriptor(exports(), key);
        // A proxy may not report a property its (empty) target lacks as non-configurable.
        return descriptor && { ...descriptor, configurable: true };
      },
      defineProperty: (_target, key, descriptor) => Reflect.defineProperty(exports(), key, descriptor),
      deleteProperty: (_target, key) => Reflect.deleteProperty(exports(), key),
    },
  );
};
