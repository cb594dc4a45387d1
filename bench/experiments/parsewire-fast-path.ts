/**
 * Experiment behind scenario 5's missed goal (docs/benchmarks.md, "What was missed at first").
 * Runs the log-streaming scenario twice in one process: with the SDK as built, then with
 * `parseWire` (dist/contract/issues.js) patched in memory to try zod's plain `safeParse`
 * first and build the described violations only when that fails. Nothing on disk changes.
 * That change has since landed in parseWire itself, so both runs now read the same; the
 * script stays as the record of how the miss was found (0.61-0.65 as built, 1.02-1.10 fixed).
 *
 *   node dist/bench/experiments/parsewire-fast-path.js      (after `npm run build`)
 */
import type { z } from "zod";
import * as logs from "../scenarios/logs";
// The module object itself (not an import binding), so its export can be replaced in memory.
const issues = require("../../contract/issues") as { parseWire: typeof import("../../contract/issues").parseWire };

(async () => {
  const asBuilt = await logs.run();
  const original = issues.parseWire;
  issues.parseWire = <T>(schema: z.ZodType<T>, input: unknown) => {
    const fast = schema.safeParse(input);
    return fast.success ? { ok: true, value: fast.data } : original(schema, input);
  };
  const patched = await logs.run();
  for (const [label, r] of [
    ["as built", asBuilt],
    ["parseWire fast path", patched],
  ] as const) {
    const s = r.results.logStreaming as {
      sdk: { linesPerSecond: number; cpuMicrosPerLine: number };
      eventsource: { linesPerSecond: number; cpuMicrosPerLine: number };
      ratio: number;
      idsOk: boolean;
    };
    process.stdout.write(
      `${label.padEnd(20)} SDK ${s.sdk.linesPerSecond} lines/s (${s.sdk.cpuMicrosPerLine} µs CPU/line), ` +
        `eventsource ${s.eventsource.linesPerSecond} lines/s (${s.eventsource.cpuMicrosPerLine} µs CPU/line), ratio ${s.ratio}, ids ${s.idsOk ? "ok" : "NOT OK"}\n`,
    );
  }
})().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
