/**
 * Preview passes values that are not known yet as this sentinel string, whatever the field's
 * type. Validation must let them through; diff must treat them as "may change".
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/** Whether the value or anything inside it is unknown. */
export function containsUnknown(value: unknown): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/** Whether any prefix of a `a.b[0].c` path lands on an unknown value. */
export function pathIsUnknown(root: unknown, path: string): boolean {
  let current: unknown = root;
  if (isUnknown(current)) return true;
  for (const part of path.split(/\.|\[(\d+)\]/).filter((p) => p !== undefined && p !== "")) {
    if (current === null || typeof current !== "object") return false;
    current = (current as Record<string, unknown>)[part];
    if (isUnknown(current)) return true;
  }
  return false;
}
