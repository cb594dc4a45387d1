/**
 * Container registry credentials (reference OpenAPI `/v2/registries`): what a private image's
 * pull needs. The username and password are write-only: sent once at create, never answered.
 * There is no update: a changed credential is a new one.
 */
import { z } from "zod";
import { tolerantList } from "./reading";

export const CreateRegistryRequest = z.strictObject({
  name: z.string().min(1),
  username: z.string().min(1),
  password: z.string().min(1),
});
export type CreateRegistryRequest = z.infer<typeof CreateRegistryRequest>;

/** Registry, read tolerantly (reading.ts): only `id` and `name` exist on the wire. */
export const Registry = z.looseObject({ id: z.string(), name: z.string() });
export type Registry = z.output<typeof Registry>;
export const ListRegistriesResponse = tolerantList("registries", Registry);
