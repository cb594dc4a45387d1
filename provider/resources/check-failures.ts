/**
 * Maps the SDK's violation strings (`field: rule`, or `a, b: rule` for cross-field rules) to
 * Pulumi check failures, dropping any violation that rests on a value unknown at preview.
 */
import { containsUnknown, pathIsUnknown } from "./unknowns";

export interface CheckFailure {
  property: string;
  reason: string;
}

export function toCheckFailures(violations: string[], inputs: Record<string, unknown>, prefix = ""): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const violation of violations) {
    const split = violation.indexOf(": ");
    const fields = split > 0 ? violation.slice(0, split) : "(inputs)";
    const reason = split > 0 ? violation.slice(split + 2) : violation;
    const paths = fields.split(", ");
    const unknown = paths.some((path) => (path === "(body)" ? containsUnknown(inputs) : pathIsUnknown(inputs, path)));
    if (unknown) continue;
    failures.push({ property: paths.map((p) => prefix + p).join(", "), reason });
  }
  return failures;
}
