/** Registry record → wire shape (contract `Registry`): `id` and `name` only; the credentials are write-only. */
import type { z } from "zod";
import type { Registry } from "../../contract";
import type { RegistryRecord } from "./store";

export type RegistryView = z.input<typeof Registry>;

export function registryView(registry: RegistryRecord): RegistryView {
  return { id: registry.id, name: registry.name };
}
