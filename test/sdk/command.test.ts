import { commandOf, decodeCommand, encodeCommand, sameCommand, storedArgs } from "../../sdk";

describe("args / cmd / entrypoint codec", () => {
  it("encodes exec-form arrays into the stored JSON form and decodes them back", () => {
    const stored = encodeCommand({ entrypoint: ["/bin/sh", "-c"], cmd: ["echo hi"] });
    expect(JSON.parse(stored)).toEqual({ entrypoint: ["/bin/sh", "-c"], cmd: ["echo hi"] });
    expect(decodeCommand(stored)).toEqual({ entrypoint: ["/bin/sh", "-c"], cmd: ["echo hi"] });
  });

  it("treats a bare shell string as CMD split into arguments", () => {
    expect(decodeCommand(`python -c "print('a b')" --flag=$HOME`)).toEqual({ cmd: ["python", "-c", "print('a b')", "--flag=$HOME"] });
  });

  it("clears with an empty string or empty arrays", () => {
    expect(encodeCommand({ cmd: [], entrypoint: [] })).toBe("");
    expect(decodeCommand("")).toEqual({});
  });

  it("makes equal commands compare equal whichever form they were written in", () => {
    expect(sameCommand(commandOf({ args: "python train.py --epochs 3" }), commandOf({ cmd: ["python", "train.py", "--epochs", "3"] }))).toBe(true);
    expect(sameCommand(commandOf({ args: '{"cmd":["a"]}' }), commandOf({ cmd: ["a"], entrypoint: [] }))).toBe(true);
    expect(sameCommand(commandOf({ args: "a b" }), commandOf({ entrypoint: ["a", "b"] }))).toBe(false);
  });

  it("stores arrays as JSON and refuses args that disagree with them", () => {
    expect(storedArgs({ cmd: ["serve", "--port", "80"] })).toEqual({ args: '{"cmd":["serve","--port","80"]}' });
    expect(storedArgs({ args: "serve --port 80", cmd: ["serve", "--port", "80"] }).conflict).toBeUndefined();
    expect(storedArgs({ args: "serve", cmd: ["other"] }).conflict).toMatch(/^args: /);
    expect(storedArgs({ args: "bash run.sh" })).toEqual({ args: "bash run.sh" });
  });
});
