/**
 * The plugin as the engine starts it (`node dist/provider/native/main.js <engine address>`): the
 * engine reads the first stdout line as the port, so that line must be the only one, even after
 * the plugin has loaded everything and answered a call.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { connect, Empty } from "./client";

const MAIN = path.join(__dirname, "..", "..", "..", "dist", "provider", "native", "main.js");

it("prints only its port on stdout and serves on it", async () => {
  const child = spawn(process.execPath, [MAIN, "--logtostderr", "-v=9", "127.0.0.1:1"], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", () => stdout.includes("\n") && resolve());
      child.once("exit", (code) => reject(new Error(`plugin exited with ${code} before printing its port`)));
    });
    expect(stdout).toMatch(/^\d+\n$/);
    const rpc = connect(Number(stdout.trim()));
    try {
      expect((await rpc.getPluginInfo(new Empty())).getVersion()).toMatch(/^\d+\.\d+\.\d+/);
    } finally {
      rpc.close();
    }
    expect(stdout).toMatch(/^\d+\n$/);
  } finally {
    child.kill();
  }
});
