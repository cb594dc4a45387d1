/**
 * The owner mark of a native resource (see sdk/ownership.ts). The resource classes compute it in
 * the program; a native resource has no class, so the plugin derives it in Check from what the
 * engine gives it: the URN (project, stack, name, parent types), the project directory (the
 * plugin's working directory, holding `Pulumi.<stack>.yaml` and its salt) and the backend.
 */
import { ownerMark } from "../../sdk/ownership";
import { stackSalt, stateBackend } from "../stack-files";

/** `urn:pulumi:<stack>::<project>::<type>::<name>` → its parts (undefined for anything else). */
export function parseUrn(urn: string): { stack: string; project: string; type: string; name: string } | undefined {
  if (!urn.startsWith("urn:pulumi:")) return undefined;
  const parts = urn.slice("urn:pulumi:".length).split("::");
  if (parts.length < 4) return undefined;
  return { stack: parts[0]!, project: parts[1]!, type: parts[2]!, name: parts.slice(3).join("::") };
}

/**
 * The first-generation mark of the resource `urn`. The organization is not sent to resource
 * plugins: `PULUMI_ORGANIZATION` when the environment sets it, else none (the backend and the
 * stack's salt still tell stacks apart).
 */
export function ownerMarkForUrn(urn: string, root: string = process.cwd()): string | undefined {
  const parsed = parseUrn(urn);
  if (!parsed) return undefined;
  return ownerMark({
    organization: process.env.PULUMI_ORGANIZATION ?? "",
    project: parsed.project,
    stack: parsed.stack,
    backend: stateBackend(),
    urn,
    salt: stackSalt(root, parsed.stack),
  });
}
