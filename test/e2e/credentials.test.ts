/**
 * The first hour with a real account, through the real engine, in both faces (a TypeScript
 * program on the dynamic resources, a YAML program on the native plugin): a wrong key fails
 * `preview` and `up` of an existing stack at once, in one line, with nothing changed; a 401 in
 * the middle of a run is one line per resource with no stack trace; and a key rotated in the
 * stack's configuration, the old one revoked, lets `refresh` and `destroy` finish without
 * `--run-program`, leaving nothing billing (provider/runtime/credentials.ts).
 */
import { createE2EStack, noIds, type E2EStack } from "./harness";

jest.setTimeout(10 * 60_000);

const ACCOUNT = { userId: "user_dev", accountId: "acct_dev" };
const WRONG_KEY = "cs_dev_wrong_key_00000";
/** A JavaScript stack frame: what an error line must never drag along. */
const STACK_FRAME = /\n\s+at \S+ \(|\/sdk\/errors\.[jt]s:\d+/;

async function failureOf(run: Promise<unknown>): Promise<string> {
  const outcome = await run.then(
    () => "",
    (error: Error) => error.message,
  );
  if (!outcome) throw new Error("the operation succeeded; it was expected to fail");
  return outcome;
}

const FACES = [
  {
    face: "TypeScript (dynamic resources)",
    stack: "credentials-ts",
    program: undefined as string | undefined,
    async declare(e2e: E2EStack) {
      await e2e.declare({
        pods: { trainer: { image: "pytorch:2.4", cpu: { id: "cpu3c", vcpuCount: 2 } } },
        sandboxes: { scratch: { image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 2, containerDiskInGb: 5 } } },
      });
    },
  },
  {
    face: "YAML (native plugin)",
    stack: "credentials-yaml",
    program: "yaml-stack",
    async declare(e2e: E2EStack) {
      await e2e.stack.setConfig("apiToken", { value: "native-secret-token-42", secret: true });
    },
  },
];

describe.each(FACES)("credentials, $face", ({ stack: stackName, program, declare }) => {
  let e2e: E2EStack;
  let firstKey: string;
  beforeAll(async () => {
    e2e = await createE2EStack(stackName, { program });
    // A key of its own, so it can be revoked while the suite's own key still reads the account.
    firstKey = `cs_dev_${stackName.replace(/\W/g, "_")}_first`;
    await e2e.control.issueApiKey(firstKey, ACCOUNT);
    await e2e.stack.setConfig("compute:apiKey", { value: firstKey, secret: true });
    await declare(e2e);
    const up = await e2e.stack.up();
    expect(up.summary.result).toBe("succeeded");
  });
  afterAll(() => e2e?.dispose());

  it("a 401 in the middle of a run is one line per resource, with the request id and no stack trace", async () => {
    const live = await e2e.liveIds();
    for (const family of ["pods", "sandboxes"]) await e2e.control.addFault({ method: "GET", path: `/v2/${family}/*`, status: 401, times: 20 });
    try {
      const output = await failureOf(e2e.stack.refresh());
      for (const id of [...live.pod, ...live.sandbox]) {
        const lines = output.split("\n").filter((line) => line.includes(`/${id} answered 401 Unauthorized`));
        // The engine may print a failed step's error again in its summary; one line each time.
        expect(lines.length).toBeGreaterThanOrEqual(1);
        for (const line of lines) expect(line).toMatch(/(pod|sandbox) \S+: read failed: GET \/v2\/(pods|sandboxes)\/\S+ answered 401 Unauthorized: .+ \[request req_[0-9a-f-]+\]/);
      }
      expect(output).not.toMatch(STACK_FRAME);
    } finally {
      await e2e.control.clearFaults();
    }
    expect(await e2e.stateIds()).toEqual(live);
  });

  it("a wrong key fails preview and up of the existing stack at once, in one line, with nothing changed", async () => {
    await e2e.stack.setConfig("compute:apiKey", { value: WRONG_KEY, secret: true });
    await e2e.control.clearRequests();
    for (const run of [() => e2e.stack.preview(), () => e2e.stack.up()]) {
      const output = await failureOf(run());
      const lines = output.split("\n").filter((line) => line.includes("refused the key"));
      expect(lines.length).toBeGreaterThanOrEqual(1);
      for (const line of lines) expect(line).toMatch(/compute:apiKey: http:\/\/127\.0\.0\.1:\d+ refused the key \(401 Unauthorized: .*\)\. Set the current key with `pulumi config set --secret compute:apiKey <key>`/);
      expect(output).not.toContain(WRONG_KEY);
      expect(output).not.toMatch(STACK_FRAME);
    }
    // Nothing but reads reached the service, and the resources are as they were.
    const sent = await e2e.control.requests();
    expect(sent.filter((request) => request.method !== "GET")).toEqual([]);
    expect(sent.filter((request) => request.status !== 401)).toEqual([]);
  });

  it("a key rotated in the stack's config, the old one revoked, lets refresh and destroy finish without --run-program", async () => {
    const live = await e2e.liveIds();
    const rotated = `cs_dev_${stackName.replace(/\W/g, "_")}_rotated`;
    await e2e.control.issueApiKey(rotated, ACCOUNT);
    await e2e.stack.setConfig("compute:apiKey", { value: rotated, secret: true });
    await e2e.control.revokeApiKey(firstKey);

    let output = "";
    const refresh = await e2e.stack.refresh({ onOutput: (text) => (output += text) });
    expect(refresh.summary.result).toBe("succeeded");
    expect(await e2e.stateIds()).toEqual(live);
    expect(output).toMatch(/using the current key from the stack's current compute:apiKey/);

    const destroy = await e2e.stack.destroy();
    expect(destroy.summary.result).toBe("succeeded");
    expect(await e2e.liveIds()).toEqual(noIds());
    expect(await e2e.stateText()).not.toContain(rotated);
  });
});
