/**
 * What a zod schema reads at heart: without what only allows the value to be absent or null, and
 * before any transform. Shared by the functions' results (functions.ts, which keeps only the
 * members a result declares) and the package schema's function shapes (native/function-shapes.ts),
 * which must agree on what a member is.
 */
import { z } from "zod";

export function coreSchema(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return coreSchema(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodPipe) return coreSchema(schema.in as z.ZodType);
  return schema;
}
