/**
 * Entry of the native plugin: `node dist/provider/native/main.js [flags…] <engine address>`.
 * The engine reads the first line of stdout as the port, so nothing else may ever reach stdout:
 * console output goes to stderr (which the engine keeps for diagnostics), set before any other
 * module loads and could print.
 */
console.log = console.error;
console.info = console.error;
console.debug = console.error;

// The engine passes its flags (`--logtostderr`, `-v=N`, `--tracing <endpoint>`) first, its
// address last.
const last = process.argv[process.argv.length - 1];
const engineAddress = process.argv.length > 2 && last && !last.startsWith("-") ? last : undefined;

// Required, not imported: an import would be hoisted above the console redirection.
const { serve } = require("./server") as typeof import("./server");

serve({ engineAddress }).then(
  ({ port, close }) => {
    process.stdout.write(`${port}\n`);
    const stop = () => void close().finally(() => process.exit(0));
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  },
  (error: unknown) => {
    console.error(`pulumi-resource-compute: cannot serve: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
