// Runs in a plain Node process (not jest: jest replaces Node's module registry, so it cannot
// show what the engine's dynamic-provider host will do). Takes the `__provider` text each class
// registers (provider/forwarder.ts), loads it back as the host does (require-from-string, with
// the project as working directory), and drives check/create/read/delete against an emulator.
// Prints one JSON line with what it saw; serialization.test.ts asserts on it.
"use strict";
const path = require("node:path");

const root = path.resolve(__dirname, "../..");
process.chdir(root);
const SECRET_ENV = "env-secret-value-7d1f0c";

async function roundTrip(kind, text, args, emulator) {
  const requireFromString = require("require-from-string");
  const loaded = requireFromString(text).handler();
  const settings = { "compute:baseUrl": emulator.url, "compute:apiKey": emulator.apiKey };
  await loaded.configure({ config: { get: (key) => settings[key] } });
  const checked = await loaded.check({}, { ...args, __provider: text });
  if (checked.failures.length) throw new Error(`${kind} check failed: ${JSON.stringify(checked.failures)}`);
  const created = await loaded.create(checked.inputs);
  const state = { ...created.outs, __provider: text };
  const read = await loaded.read(created.id, state);
  await loaded.delete(created.id, state);
  const afterDelete = await loaded.read(created.id, state);
  return {
    bytes: Buffer.byteLength(text, "utf8"),
    containsApiKey: text.includes(emulator.apiKey),
    containsSecret: text.includes(SECRET_ENV),
    containsSchemas: /zod|ZodObject|safeParse/.test(text),
    createdId: created.id,
    createdState: created.outs.status ?? created.outs.state,
    readId: read.id,
    afterDeleteId: afterDelete.id,
  };
}

(async () => {
  const { startEmulator } = require(path.join(root, "dist/emulator"));
  const emulator = await startEmulator({ port: 0, profile: "fast", quiet: true });
  try {
    const { providerText } = require(path.join(root, "dist/provider/forwarder.js"));
    const { dynamicToken } = require(path.join(root, "dist/contract/tokens.js"));
    const pod = await roundTrip(
      "pod",
      providerText(dynamicToken("Pod")),
      { name: "serialized-pod", image: "alpine", cpu: { id: "cpu3c", vcpuCount: 2 }, env: { TOKEN: SECRET_ENV } },
      emulator,
    );
    const sandbox = await roundTrip(
      "sandbox",
      providerText(dynamicToken("Sandbox")),
      { name: "serialized-sandbox", image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 }, env: { TOKEN: SECRET_ENV } },
      emulator,
    );
    process.stdout.write(`${JSON.stringify({ pod, sandbox })}\n`);
  } finally {
    await emulator.close();
  }
})().catch((error) => {
  process.stderr.write(`${error.stack || error}\n`);
  process.exit(1);
});
