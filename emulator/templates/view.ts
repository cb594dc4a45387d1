/** Template record → wire shape (contract `Template`). */
import type { z } from "zod";
import type { Template } from "../../contract";
import type { TemplateRecord } from "./store";

export type TemplateView = z.input<typeof Template>;

export function templateView(template: TemplateRecord, accountId: string): TemplateView {
  const { accountId: owner, source: _source, ...fields } = template;
  // The registry credential is private to the owner (reference OpenAPI: null for others).
  return { ...fields, registry: owner === accountId ? template.registry : null };
}
