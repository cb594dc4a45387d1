#!/usr/bin/env node
/** Entry point of the `compute` command (package.json `bin`). */
import { run } from "./program";

// `compute ... | head`: a closed pipe is a normal end, not a crash.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

void run(process.argv).then(async (code) => {
  // Let buffered output reach its destination, then exit even if a socket lingers.
  await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write("", () => resolve()));
  process.exit(code);
});
