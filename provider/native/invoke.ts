/**
 * The data-source functions served through Invoke, `compute:index:<name>`: the table of
 * provider/functions.ts, called with the plugin's configured client. The arguments are read
 * with the function's own schema (`readArgs`: every wrong one is refused at once, with the
 * contract's wording, before any call), and a
 * list result comes back under its `listMember`, since Invoke returns an object.
 */
import { FUNCTIONS, type DataSource, type FunctionName } from "../functions";
import { requireConfiguredKey } from "../runtime/credentials";
import { functionFailure } from "../runtime/errors";
import type { Props } from "../resources/definition";
import { client } from "../runtime/settings";

/** The function a token names (`compute:index:getGpuTypes`, or the short `compute:getGpuTypes`). */
export function functionFor(token: string): ((args: Props) => Promise<Props>) | undefined {
  const name = /^compute:(?:index:)?([A-Za-z]+)$/.exec(token)?.[1];
  if (!name || !Object.hasOwn(FUNCTIONS, name)) return undefined;
  const fn: DataSource = FUNCTIONS[name as FunctionName];
  return async (args) => {
    let read: Props;
    try {
      // Before the key check and any call: a wrong argument fails at preview, whatever the service.
      read = fn.readArgs(args);
    } catch (error) {
      throw functionFailure(name, error);
    }
    // Functions run for a program (`up`, `preview`): with the configured key, never a stand-in.
    await requireConfiguredKey();
    const result = await fn.call(client(), read).catch((error: unknown) => {
      throw functionFailure(name, error);
    });
    return fn.listMember ? { [fn.listMember]: result } : ({ ...(result as object) } as Props);
  };
}
