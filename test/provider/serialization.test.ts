import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as path from "node:path";

const root = path.resolve(__dirname, "../..");
const budgets = require("../../bench/budgets.json") as { serializedProviderBytes: number };

describe("provider serialization, as the engine does it, in a plain Node process", () => {
  let result: Record<"pod" | "sandbox", Record<string, unknown>>;

  beforeAll(() => {
    // dist/ is built by jest's global set-up (test/setup/build.ts); the self-link by set-up.
    if (!existsSync(path.join(root, "node_modules/pulumi-compute"))) {
      throw new Error("the package self-link is missing: run `npm run setup`");
    }
    const run = spawnSync(process.execPath, [path.join(__dirname, "serialization-roundtrip.js")], { encoding: "utf8", timeout: 60_000, env: { ...process.env, COMPUTE_API_KEY: "", COMPUTE_BASE_URL: "" } });
    if (run.status !== 0) throw new Error(`round trip failed (${run.status}):\n${run.stderr}`);
    result = JSON.parse(run.stdout.trim().split("\n").pop()!);
  });

  it.each(["pod", "sandbox"] as const)("%s: loads back and runs create, read and delete against the emulator", (kind) => {
    expect(result[kind]).toMatchObject({ createdId: expect.any(String), createdState: "RUNNING", afterDeleteId: "" });
    expect(result[kind].readId).toBe(result[kind].createdId);
  });

  it.each(["pod", "sandbox"] as const)("%s: the serialized text holds no API key, no secret and no schema code, within the size budget", (kind) => {
    expect(result[kind]).toMatchObject({ containsApiKey: false, containsSecret: false, containsSchemas: false });
    expect(result[kind].bytes).toBeLessThanOrEqual(budgets.serializedProviderBytes);
  });
});
