/**
 * The data-source functions served through Invoke, `compute:index:<name>`: the same calls as
 * provider/functions.ts (which runs them in a TypeScript program's own process), made with the
 * plugin's configured client. Their arguments and results are described once, in
 * function-shapes.ts (also the schema's source): a list result comes back under its
 * `listMember`, since Invoke returns an object.
 */
import type { SandboxState } from "../../sdk";
import type { Props } from "../runtime/props";
import { client } from "../runtime/settings";
import { FUNCTION_SHAPES, type FunctionShape } from "./function-shapes";

type Name = keyof typeof FUNCTION_SHAPES;

const str = (value: unknown) => (typeof value === "string" ? value : undefined);

const CALLS: Readonly<Record<Name, (args: Props) => Promise<unknown>>> = {
  getGpuTypes: () => client().catalog.gpuTypes({ includeAvailability: true }),
  getDataCenters: (args) => client().catalog.dataCenters({ regions: str(args.region), includeGpuAvailability: true }),
  getCpuFlavors: () => client().catalog.cpuFlavors(),
  getTemplates: () => client().catalog.templates(),
  getSandboxes: (args) => client().sandboxes.list({ labels: args.labels as Record<string, string> | undefined, state: str(args.state) as SandboxState | undefined }),
  getHubRepo: (args) => client().hub.get(String(args.ref ?? "")),
};

/** The function a token names (`compute:index:getGpuTypes`, or the short `compute:getGpuTypes`). */
export function functionFor(token: string): ((args: Props) => Promise<Props>) | undefined {
  const name = /^compute:(?:index:)?([A-Za-z]+)$/.exec(token)?.[1];
  if (!name || !Object.hasOwn(CALLS, name)) return undefined;
  const shape: FunctionShape = FUNCTION_SHAPES[name as Name];
  return async (args) => {
    const result = await CALLS[name as Name](args);
    return shape.listMember ? { [shape.listMember]: result } : ({ ...(result as object) } as Props);
  };
}
