/**
 * Templates this run changes, so that a pod or sandbox made from one can say so at preview.
 * A template is applied once, at create (v2 template rule 5): its later edits never reach what
 * was made from it. The engine diffs a template before what depends on it, in the same provider
 * process, so the template's diff notes the change here and the dependents' diffs read it
 * (hooks reach it as `context.templates`).
 */
import type { TemplateChanges } from "../resources/definition";
import { processSlot } from "./process-memory";

interface TemplateChange {
  name: string;
  fields: string[];
}

// Noted by the template's diff, read by its dependents' diffs: any copy of the runtime may serve each.
const changes = () => processSlot("changed-templates", () => new Map<string, TemplateChange>());

export const templateChanges: TemplateChanges = {
  note(id, change) {
    changes().set(id, change);
  },
  warning(kind, templateId) {
    const change = typeof templateId === "string" ? changes().get(templateId) : undefined;
    if (!change) return undefined;
    return (
      `warning: its template ${change.name} (${templateId}) changes in this update (${change.fields.join(", ")}), ` +
      `but a ${kind} keeps what its template gave it at create; to take the new settings, replace it (pulumi up --replace <this resource's URN>)`
    );
  },
};
