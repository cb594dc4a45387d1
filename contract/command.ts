/**
 * The container command in its two wire forms.
 *
 * The service stores one raw `args` string: either a bare shell string (treated as CMD and split
 * into arguments) or a JSON object string `{"entrypoint": [...], "cmd": [...]}`. Clients may send
 * exec-form `cmd`/`entrypoint` arrays instead. `encodeCommand` and `decodeCommand` are the one
 * place that converts between them, so "the same command" means the same thing to the SDK, the
 * emulator and the provider's diff.
 */
import { parse as shellParse } from "shell-quote";
import { jsonValue } from "./issues";

export interface ExecCommand {
  entrypoint?: string[];
  cmd?: string[];
}

export interface CommandFields {
  args?: string;
  cmd?: string[];
  entrypoint?: string[];
}

/** Stored `args` for exec-form arrays; an empty array clears its half. */
export function encodeCommand(command: ExecCommand): string {
  const stored: ExecCommand = {};
  if (command.entrypoint && command.entrypoint.length > 0) stored.entrypoint = [...command.entrypoint];
  if (command.cmd && command.cmd.length > 0) stored.cmd = [...command.cmd];
  return Object.keys(stored).length === 0 ? "" : JSON.stringify(stored);
}

/** The exec-form meaning of a stored `args` string. */
export function decodeCommand(args: string | undefined | null): ExecCommand {
  const text = (args ?? "").trim();
  if (text === "") return {};
  if (text.startsWith("{")) {
    const parsed = tryParseJsonCommand(text);
    if (parsed) return parsed;
  }
  // Variables stay literal ($HOME), operators keep their text: the container's shell sees them.
  const words = shellParse(text, (name) => `$${name}`).map((part) => {
    if (typeof part === "string") return part;
    if ("op" in part) return part.op === "glob" ? (part as { pattern: string }).pattern : part.op;
    if ("comment" in part) return `#${part.comment}`;
    return String(part);
  });
  return words.length > 0 ? { cmd: words } : {};
}

function tryParseJsonCommand(text: string): ExecCommand | undefined {
  const value = jsonValue(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.some((k) => k !== "entrypoint" && k !== "cmd")) return undefined;
  const out: ExecCommand = {};
  for (const key of ["entrypoint", "cmd"] as const) {
    const member = record[key];
    if (member === undefined) continue;
    if (!Array.isArray(member) || member.some((w) => typeof w !== "string")) return undefined;
    if (member.length > 0) out[key] = member as string[];
  }
  return out;
}

/** The exec-form command a request or a stored pod describes; undefined when it names none. */
export function commandOf(fields: CommandFields): ExecCommand | undefined {
  if (fields.cmd !== undefined || fields.entrypoint !== undefined) {
    return decodeCommand(encodeCommand({ cmd: fields.cmd, entrypoint: fields.entrypoint }));
  }
  if (fields.args !== undefined) return decodeCommand(fields.args);
  return undefined;
}

export function sameCommand(a: ExecCommand | undefined, b: ExecCommand | undefined): boolean {
  return encodeCommand(a ?? {}) === encodeCommand(b ?? {});
}

/**
 * The stored `args` for a request's command fields, or a violation when `args` and the arrays
 * disagree (the contract accepts both only when they describe the same command).
 */
export function storedArgs(fields: CommandFields): { args?: string; conflict?: string } {
  const hasArrays = fields.cmd !== undefined || fields.entrypoint !== undefined;
  if (!hasArrays) return { args: fields.args };
  const fromArrays = commandOf({ cmd: fields.cmd, entrypoint: fields.entrypoint });
  if (fields.args !== undefined && !sameCommand(decodeCommand(fields.args), fromArrays)) {
    return { conflict: "args: must describe the same command as cmd/entrypoint when both are sent" };
  }
  return { args: encodeCommand(fromArrays ?? {}) };
}

/**
 * A create request with its exec-form arrays folded into the one stored `args` string. Both
 * documents accept `args`; only the v2 document accepts `cmd`/`entrypoint` (the public create
 * schema is closed without them), and on create an omitted half means "none", so the two forms
 * are the same command. A request whose `args` and arrays disagree is left as written: the
 * service reports that conflict itself.
 */
export function createWithStoredArgs<T extends CommandFields>(request: T): Omit<T, "cmd" | "entrypoint"> {
  if (request.cmd === undefined && request.entrypoint === undefined) return request;
  const stored = storedArgs(request);
  if (stored.conflict) return request;
  const { cmd: _cmd, entrypoint: _entrypoint, ...rest } = request;
  return { ...rest, args: stored.args };
}
