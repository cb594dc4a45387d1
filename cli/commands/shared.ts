/** Helpers shared by the command modules: the action wrapper and help examples. */
import type { Command } from "commander";
import { Context } from "../context";

/**
 * Wraps a command's handler: builds the context from the parsed flags (the command is the last
 * argument commander passes) and closes the client afterwards, whatever happened.
 */
export function action<A extends unknown[]>(handler: (ctx: Context, ...args: A) => Promise<void>) {
  return async (...received: unknown[]): Promise<void> => {
    const command = received[received.length - 1] as Command;
    const ctx = Context.of(command);
    try {
      await handler(ctx, ...(received.slice(0, -1) as A));
    } finally {
      await ctx.close();
    }
  };
}

/** Adds an "Examples:" block to a command's `--help`. */
export function examples(command: Command, lines: string[]): Command {
  return command.addHelpText("after", `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}`);
}
