/**
 * Each definition's example (its `example`, from provider/resources/<kind>/example.ts): the
 * smallest inputs a program could give, which every generic test (outputs.test.ts,
 * every-kind.test.ts) exercises the definition with, so a kind added to the registry is tested
 * with no edit to a test.
 */
import type { ResourceDefinition } from "../../provider/resources/definition";

/** A copy of the definition's example (a test may add to it). */
export function exampleOf(definition: ResourceDefinition): Record<string, unknown> {
  return structuredClone(definition.example) as Record<string, unknown>;
}
