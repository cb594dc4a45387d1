/**
 * The key check that starts every run, and key rotation (provider/runtime/credentials.ts): a
 * refused key or an unreachable service fails at once in one line, with nothing sent that
 * changes anything; a rotated-away recorded key gives way to the current one for reads and
 * deletes, but only once that key has seen one of the stack's resources, so another account's
 * key can never make the stack forget or skip a pod that bills.
 *
 * Each test configures its own key (issued in the emulator): a check is remembered per
 * (service, key, team) for the life of the process, as in a run.
 */
import { REFUSED_PORT } from "../helpers/loopback";
import { checked, recorded, runtime, useProvider } from "./helpers";

jest.setTimeout(60_000);

const env = useProvider({ resetBeforeEach: true });
const ACCOUNT = { userId: "user_dev", accountId: "acct_dev" };
/** The fixture's key of another account (acct_other), with every scope. */
const OTHER_ACCOUNTS_KEY = "cs_other_7e5b3f90";

let serial = 0;
async function issuedKey(): Promise<string> {
  const key = `cs_dev_rotation_${process.pid}_${++serial}`;
  await env.control.issueApiKey(key, ACCOUNT);
  return key;
}

function configureWith(settings: Record<string, string | undefined>, stack?: string): void {
  runtime.configure({ get: (key: string) => settings[key] }, { stack });
}

async function withEnv<T>(vars: Record<string, string | undefined>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  Object.assign(process.env, vars);
  for (const [name, value] of Object.entries(vars)) if (value === undefined) delete process.env[name];
  try {
    return await body();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** The error `run` fails with (and a test failure if it succeeds). */
async function rejection(run: Promise<unknown>): Promise<Error> {
  const outcome = await run.then(() => undefined, (error: Error) => error);
  if (!outcome) throw new Error("expected the call to fail, and it succeeded");
  return outcome;
}

async function mutations(): Promise<string[]> {
  return (await env.control.requests()).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
}

async function podStatus(id: string): Promise<string> {
  const res = await fetch(`${env.url}/v2/pods/${id}`, { headers: { authorization: `Bearer ${env.apiKey}` } });
  // A deleted pod is gone from the API (404), not kept as TERMINATED.
  return res.status === 404 ? "gone" : ((await res.json()) as { status: string }).status;
}

/**
 * A running pod of the account, as `up` leaves it in the state, and a key of the same account
 * that the state recorded for it: this process has never checked that key (a new run).
 */
async function podWithRecordedKey() {
  configureWith({ "compute:baseUrl": env.url, "compute:apiKey": env.apiKey });
  const inputs = await checked("pod", { name: "trainer", image: "pytorch:2.4", cpu: { id: "cpu3c", vcpuCount: 2 } });
  const created = await runtime.resources.pod.create(inputs);
  return { id: created.id, outs: recorded(created.outs), recordedKey: await issuedKey() };
}

afterEach(() => configureWith({ "compute:baseUrl": env.url, "compute:apiKey": env.apiKey }));

describe("the key check at the start of a run", () => {
  it("fails a refused key at the first step in one line that names the setting and the fix, with no mutation", async () => {
    await env.control.clearRequests();
    configureWith({ "compute:baseUrl": env.url, "compute:apiKey": "cs_dev_not_a_key_0000" });
    const error = await rejection(runtime.resources.pod.check({}, { name: "trainer", image: "i", cpu: { id: "cpu3c", vcpuCount: 2 } }));
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(/^pod trainer: check failed: compute:apiKey: http:\/\/127\.0\.0\.1:\d+ refused the key \(401 [^)]*request req_[^)]*\)\. Set the current key with `pulumi config set --secret compute:apiKey <key>`/);
    expect(error.message).not.toContain("\n");
    expect(error.message).not.toContain("cs_dev_not_a_key_0000");
    // No stack trace into the package's sources.
    expect(error.stack).toBe(error.message);
    expect(await mutations()).toEqual([]);
  });

  it("names COMPUTE_API_KEY when the refused key came from the environment", async () => {
    await withEnv({ COMPUTE_API_KEY: "cs_dev_env_not_a_key_1" }, async () => {
      configureWith({ "compute:baseUrl": env.url });
      const error = await rejection(runtime.resources.sandbox.read("sb-x", { name: "scratch" }));
      expect(error.message).toMatch(/^sandbox scratch: read failed: COMPUTE_API_KEY: .* refused the key \(401 /);
    });
  });

  it("fails an unreachable service in one line naming compute:baseUrl and the way to preview offline", async () => {
    const port = REFUSED_PORT;
    configureWith({ "compute:baseUrl": `http://127.0.0.1:${port}`, "compute:apiKey": await issuedKey() });
    // Every step of the run meets the same check's failure, each naming only its own resource.
    for (const name of ["trainer", "second", "third"]) {
      const error = await rejection(runtime.resources.pod.check({}, { name, image: "i" }));
      expect(error.message).toMatch(new RegExp(`^pod ${name}: check failed: compute:baseUrl: http://127\\.0\\.0\\.1:${port} cannot be reached \\(.+\\)\\. .*compute:skipCredentialsValidation true`));
      expect(error.message.match(/failed:/g)).toHaveLength(1);
      expect(error.message).not.toContain("\n");
    }
  });

  it("is skipped with compute:skipCredentialsValidation, and a good key is checked once, with one read", async () => {
    await env.control.clearRequests();
    configureWith({ "compute:baseUrl": env.url, "compute:apiKey": "cs_dev_not_a_key_0001", "compute:skipCredentialsValidation": "true" });
    const skipped = await runtime.resources.pod.check({}, { name: "trainer", image: "i", cpu: { id: "cpu3c", vcpuCount: 2 } });
    expect(skipped.failures).toEqual([]);
    expect((await env.control.requests()).filter((r) => r.path === "/v2/catalog/datacenters")).toEqual([]);

    configureWith({ "compute:baseUrl": env.url, "compute:apiKey": await issuedKey() });
    for (let i = 0; i < 3; i++) await runtime.resources.pod.check({}, { name: `p${i}`, image: "i", cpu: { id: "cpu3c", vcpuCount: 2 } });
    expect((await env.control.requests()).filter((r) => r.path === "/v2/catalog/datacenters")).toHaveLength(1);
  });

  it("takes a key scoped away from the catalog as a good key (403 is about scopes, not validity)", async () => {
    const key = `cs_dev_sandboxes_only_${process.pid}`;
    await env.control.issueApiKey(key, { ...ACCOUNT, scopes: ["sandboxes"] });
    configureWith({ "compute:baseUrl": env.url, "compute:apiKey": key });
    expect(await runtime.resources.sandbox.read("sb-missing", { name: "scratch" })).toEqual({ id: "" });
  });
});

describe("a rotated key", () => {
  it("lets refresh and destroy use the current key from COMPUTE_API_KEY once the recorded one is refused", async () => {
    const { recordedKey, ...pod } = await podWithRecordedKey();
    const currentKey = await issuedKey();
    await env.control.revokeApiKey(recordedKey);
    await withEnv({ COMPUTE_API_KEY: currentKey }, async () => {
      configureWith({ "compute:baseUrl": env.url, "compute:apiKey": recordedKey });
      const refreshed = await runtime.resources.pod.read(pod.id, pod.outs);
      expect(refreshed.id).toBe(pod.id);
      await runtime.resources.pod.remove(pod.id, pod.outs);
    });
    expect(await podStatus(pod.id)).toBe("gone");
  });

  it("never lets a stand-in key act for a program run: up and preview fail on the refused configured key", async () => {
    const refused = await issuedKey();
    await env.control.revokeApiKey(refused);
    await env.control.clearRequests();
    await withEnv({ COMPUTE_API_KEY: await issuedKey() }, async () => {
      configureWith({ "compute:baseUrl": env.url, "compute:apiKey": refused });
      const error = await rejection(runtime.resources.pod.check({}, { name: "trainer", image: "i", cpu: { id: "cpu3c", vcpuCount: 2 } }));
      expect(error.message).toMatch(/^pod trainer: check failed: compute:apiKey: .* refused the key \(401 /);
      const create = await rejection(runtime.resources.pod.create({ name: "trainer", image: "i", cpu: { id: "cpu3c", vcpuCount: 2 } }));
      expect(create.message).toMatch(/refused the key/);
    });
    expect(await mutations()).toEqual([]);
  });

  it("refuses another account's key: the pod is neither forgotten by refresh nor skipped by destroy", async () => {
    const { recordedKey, ...pod } = await podWithRecordedKey();
    await env.control.revokeApiKey(recordedKey);
    await withEnv({ COMPUTE_API_KEY: OTHER_ACCOUNTS_KEY }, async () => {
      configureWith({ "compute:baseUrl": env.url, "compute:apiKey": recordedKey });
      const read = await rejection(runtime.resources.pod.read(pod.id, pod.outs));
      expect(read).toBeInstanceOf(Error);
      expect(read.message).toMatch(new RegExp(`^pod trainer: read failed: pod trainer \\(${pod.id}\\): the recorded key was refused and the current key from COMPUTE_API_KEY cannot see this pod, so it may act for another account: nothing was read or deleted\\.`));
      const removed = await rejection(runtime.resources.pod.remove(pod.id, pod.outs));
      expect(removed.message).toMatch(/cannot see this pod/);
    });
    expect(await podStatus(pod.id)).toBe("RUNNING");
  });

  it("fails in one line naming the fix when no current key is found", async () => {
    const { recordedKey, ...pod } = await podWithRecordedKey();
    await env.control.revokeApiKey(recordedKey);
    await withEnv({ COMPUTE_API_KEY: undefined }, async () => {
      configureWith({ "compute:baseUrl": env.url, "compute:apiKey": recordedKey }, "no-such-stack");
      const error = await rejection(runtime.resources.pod.remove(pod.id, pod.outs));
      expect(error.message).toMatch(/^pod trainer: delete failed: compute:apiKey: .* refused the key \(401 .*`refresh` and `destroy` start from the key recorded at the last `up`/);
      expect(error.message).not.toContain("\n");
    });
    expect(await podStatus(pod.id)).toBe("RUNNING");
  });
});

describe("errors of the service", () => {
  it("reach the user as one line: resource, operation, request, status, detail, violations and request id", async () => {
    configureWith({ "compute:baseUrl": env.url, "compute:apiKey": env.apiKey });
    const body = { type: "about:blank", title: "Unprocessable Entity", status: 422, detail: "the sandbox cannot be read now", errors: ["state: is changing", "region: is draining"] };
    await env.control.addFault({ method: "GET", path: "/v2/sandboxes/sb-x", status: 422, body, times: 1 });
    const error = await rejection(runtime.resources.sandbox.read("sb-x", { name: "scratch", sandboxId: "sb-x" }));
    expect(error.message).toMatch(
      /^sandbox scratch: read failed: GET \/v2\/sandboxes\/sb-x answered 422 Unprocessable Entity: the sandbox cannot be read now \(state: is changing; region: is draining\) \[request req_[0-9a-f-]+\]$/,
    );
    expect(error.stack).toBe(error.message);
  });

  it("keep the stack trace of a bug in the product", async () => {
    configureWith({ "compute:baseUrl": env.url, "compute:apiKey": env.apiKey });
    // A props bag the engine never sends (no inputs at all): a TypeError, the product's own.
    const error = await rejection(runtime.resources.pod.update("pod-x", null as never, null as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.stack).toMatch(/\n\s+at /);
  });
});
