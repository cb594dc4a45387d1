/**
 * Choosing the answer shape: the `startEmulator` option, the COMPUTE_EMULATOR_SHAPE environment
 * variable (its default), the `--shape` flag of the command, and the control plane at run time.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";
import { EmulatorControl, EmulatorControlError, startEmulator } from "../../emulator";
import { gpuPod, KEYS, withEmulator } from "./harness";

/** A pod answer tells the shapes apart: the seed has `cmd`, the public shape does not. */
async function shapeOfAnswers(url: string, key: string = KEYS.dev): Promise<"seed" | "public"> {
  const response = await fetch(`${url}/v2/pods`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(gpuPod()),
  });
  expect(response.status).toBe(201);
  return "cmd" in ((await response.json()) as object) ? "seed" : "public";
}

describe("startEmulator", () => {
  const saved = process.env.COMPUTE_EMULATOR_SHAPE;
  afterEach(() => {
    if (saved === undefined) delete process.env.COMPUTE_EMULATOR_SHAPE;
    else process.env.COMPUTE_EMULATOR_SHAPE = saved;
  });

  async function started(options: Parameters<typeof startEmulator>[0] = {}) {
    const emulator = await startEmulator({ quiet: true, ...options });
    try {
      const control = new EmulatorControl(emulator.url, emulator.adminToken);
      return { setting: await control.shape(), answers: await shapeOfAnswers(emulator.url) };
    } finally {
      await emulator.close();
    }
  }

  test("the seed shape when neither the option nor the environment says otherwise", async () => {
    delete process.env.COMPUTE_EMULATOR_SHAPE;
    expect(await started()).toEqual({ setting: "seed", answers: "seed" });
  });

  test("COMPUTE_EMULATOR_SHAPE is the default; the option wins over it", async () => {
    process.env.COMPUTE_EMULATOR_SHAPE = "public";
    expect(await started()).toEqual({ setting: "public", answers: "public" });
    expect(await started({ shape: "seed" })).toEqual({ setting: "seed", answers: "seed" });
    delete process.env.COMPUTE_EMULATOR_SHAPE;
    expect(await started({ shape: "public" })).toEqual({ setting: "public", answers: "public" });
  });

  test("an unknown shape is refused at start, naming where it came from", async () => {
    process.env.COMPUTE_EMULATOR_SHAPE = "openapi";
    await expect(startEmulator({ quiet: true })).rejects.toThrow(/COMPUTE_EMULATOR_SHAPE must be seed or public, got "openapi"/);
    await expect(startEmulator({ quiet: true, shape: "loose" as never })).rejects.toThrow(/shape must be seed or public/);
  });
});

test("the control plane reads and switches the shape at run time; state shows it", async () => {
  await withEmulator({}, async (h) => {
    expect(await h.control.shape()).toBe("seed");
    expect(await h.control.setShape("public")).toBe("public");
    expect(await shapeOfAnswers(h.url)).toBe("public");
    expect(await h.control.state()).toMatchObject({ shape: "public" });
    const refused = await h.control.setShape("strict" as never).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(EmulatorControlError);
    expect(refused).toMatchObject({ status: 400 });
    expect(await h.control.shape()).toBe("public");
    await h.control.setShape("seed");
    expect(await shapeOfAnswers(h.url)).toBe("seed");
  });
});

test("compute-emulator --shape public answers in the public shape", async () => {
  const root = resolve(__dirname, "../..");
  const env: NodeJS.ProcessEnv = { ...process.env, TS_NODE_PROJECT: join(root, "tsconfig.json") };
  delete env.COMPUTE_EMULATOR_SHAPE;
  const child: ChildProcess = spawn(
    process.execPath,
    ["-r", "ts-node/register/transpile-only", "emulator/bin.ts", "--port", "0", "--profile", "fast", "--shape", "public", "--print", "json"],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"], env },
  );
  try {
    let banner = "";
    let line = "";
    // The JSON line (stdout) and the start-up lines (stderr) arrive on two pipes, in any order.
    const ready = await new Promise<{ url: string; apiKey: string; adminToken: string; shape: string }>((resolvePromise, reject) => {
      const settle = () => {
        if (line.includes("\n") && /^State: /m.test(banner)) resolvePromise(JSON.parse(line));
      };
      child.stdout!.on("data", (chunk) => ((line += chunk), settle()));
      child.stderr!.on("data", (chunk) => ((banner += chunk), settle()));
      child.on("exit", (code) => reject(new Error(`compute-emulator exited with ${code}: ${banner}`)));
    });
    expect(ready.shape).toBe("public");
    expect(banner).toMatch(/Answer shape: public/);
    const control = new EmulatorControl(ready.url, ready.adminToken);
    expect(await control.shape()).toBe("public");
    expect(await shapeOfAnswers(ready.url, ready.apiKey)).toBe("public");
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
}, 60000);
