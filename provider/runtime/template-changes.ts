/**
 * Templates this run changes, so that a pod or sandbox made from one can say so at preview.
 * A template is applied once, at create (v2 template rule 5): its later edits never reach what
 * was made from it. The engine diffs a template before what depends on it, in the same provider
 * process, so the template's diff notes the change here and the dependents' diffs read it.
 */
const CHANGED = Symbol.for("pulumi-compute.provider.changed-templates");

interface TemplateChange {
  name: string;
  fields: string[];
}

function changes(): Map<string, TemplateChange> {
  const store = globalThis as Record<symbol, Map<string, TemplateChange> | undefined>;
  return (store[CHANGED] ??= new Map<string, TemplateChange>());
}

export function noteTemplateChange(id: string, change: TemplateChange): void {
  changes().set(id, change);
}

/**
 * The warning for a resource made from template `templateId`, when this run changes that
 * template; undefined otherwise.
 */
export function templateChangeWarning(kind: string, templateId: unknown): string | undefined {
  const change = typeof templateId === "string" ? changes().get(templateId) : undefined;
  if (!change) return undefined;
  return (
    `warning: its template ${change.name} (${templateId}) changes in this update (${change.fields.join(", ")}), ` +
    `but a ${kind} keeps what its template gave it at create; to take the new settings, replace it (pulumi up --replace <this resource's URN>)`
  );
}
