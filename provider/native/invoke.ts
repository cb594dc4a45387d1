/**
 * The data-source functions served through Invoke, `compute:index:<name>`: the table of
 * provider/functions.ts, called with the plugin's configured client. The arguments are read
 * with the function's own schema (a wrong one is refused with the contract's wording), and a
 * list result comes back under its `listMember`, since Invoke returns an object.
 */
import { parseWire } from "../../sdk";
import { FUNCTIONS, type DataSource, type FunctionName } from "../functions";
import { requireConfiguredKey } from "../runtime/credentials";
import { functionFailure } from "../runtime/errors";
import type { Props } from "../runtime/props";
import { client } from "../runtime/settings";

/** The function a token names (`compute:index:getGpuTypes`, or the short `compute:getGpuTypes`). */
export function functionFor(token: string): ((args: Props) => Promise<Props>) | undefined {
  const name = /^compute:(?:index:)?([A-Za-z]+)$/.exec(token)?.[1];
  if (!name || !Object.hasOwn(FUNCTIONS, name)) return undefined;
  const fn: DataSource = FUNCTIONS[name as FunctionName];
  return async (args) => {
    const read = parseWire(fn.args, args);
    if (!read.ok) throw new Error(`${name}: invalid arguments: ${read.violations.join("; ")}`);
    // Functions run for a program (`up`, `preview`): with the configured key, never a stand-in.
    await requireConfiguredKey();
    const result = await fn.call(client(), read.value).catch((error: unknown) => {
      throw functionFailure(name, error);
    });
    return fn.listMember ? { [fn.listMember]: result } : ({ ...(result as object) } as Props);
  };
}
