/**
 * The `compute-cost` policy pack, served to the engine (docs/cost.md). Loading this module starts
 * the pack's gRPC server: only the pack's entry (index.js) requires it.
 */
import * as path from "node:path";
import { PolicyPack } from "@pulumi/policy";
import { costPolicies } from "./policies";

// `PolicyPack` takes its version from `<working directory>/package.json`, and the engine starts
// the pack in this folder, which has none: the pack is part of this package and carries its
// version, so the package's manifest is read (found by the package's own name, as
// provider/forwarder.ts finds it), and the working directory is put back at once.
const packageRoot = path.dirname(require.resolve("pulumi-compute/package.json"));
const workingDirectory = process.cwd();
process.chdir(packageRoot);
try {
  new PolicyPack("compute-cost", { policies: costPolicies() });
} finally {
  process.chdir(workingDirectory);
}
