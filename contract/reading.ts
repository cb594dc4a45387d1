/**
 * How the SDK reads the service's answers: tolerantly. Two documents describe the same
 * responses (the v2 document with the contract decisions, and the public OpenAPI); they differ
 * in which members are required and whether an optional member may be `null`
 * (docs/api-contract.md, "Where the two documents differ"). A body either allows must be read,
 * so response schemas are built from these helpers:
 *
 * - an optional member sent as `null` reads as absent, so consumers see one shape;
 * - a member the product needs but can assume gets its value when absent (`withDefault`);
 * - an enumeration the service may extend is read openly (`openEnum`);
 * - a list survives an item it cannot read (`tolerantList`): the item is set aside with its
 *   violations instead of failing the whole list.
 *
 * Request schemas never use these: what the SDK sends stays strict.
 */
import { z } from "zod";
import { parseWire } from "./issues";

/** An optional member: `null` and absence mean the same thing, and read as absent. */
export function optional<T extends z.ZodType>(schema: T) {
  return schema
    .nullish()
    .transform((value) => value ?? undefined)
    .optional();
}

/** A member the product can assume when the service leaves it out or sends `null`. */
export function withDefault<T extends z.ZodType>(schema: T, fallback: () => z.output<T>) {
  return schema.nullish().transform((value): z.output<T> => value ?? fallback());
}

/** A member whose "nothing" is `null` (e.g. `dataCenterId` before scheduling): absent reads as null. */
export function orNull<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value): z.output<T> | null => value ?? null);
}

/**
 * An enumeration the service may extend: a known value reads as itself, any other string as
 * `fallback` (the field's own catch-all such as `"UNKNOWN"`, or `undefined` for "not
 * understood, treat as absent"). Each field chooses its fallback where it is declared.
 */
export function openEnum<const V extends string, F>(values: readonly V[], fallback: F) {
  const known = new Set<string>(values);
  return z.string().transform((value): V | F => (known.has(value) ? (value as V) : fallback));
}

/** A list item that could not be read: where it was, what identifies it, and why. */
export interface SetAside {
  index: number;
  id?: string;
  name?: string;
  violations: string[];
}

export type TolerantList<K extends string, T> = { [P in K]: T[] } & { setAside: SetAside[] } & Record<string, unknown>;

/**
 * `{<key>: T[]}` where one unreadable item does not make the others unreadable: such items are
 * left out of `<key>` and reported in `setAside` (with `<key>[i].` paths), so callers that must
 * not overlook one (create recovery, status polling) can ask for it by id and get the reason.
 */
export function tolerantList<K extends string, T>(key: K, item: z.ZodType<T>): z.ZodType<TolerantList<K, T>> {
  const shape = { [key]: z.array(z.unknown()) } as Record<K, z.ZodArray<z.ZodUnknown>>;
  return z.looseObject(shape).transform((body) => {
    const items: T[] = [];
    const setAside: SetAside[] = [];
    (body[key] as unknown[]).forEach((raw, index) => {
      const parsed = item.safeParse(raw);
      if (parsed.success) {
        items.push(parsed.data);
        return;
      }
      const worded = parseWire(item, raw);
      const prefix = `${key}[${index}]`;
      const violations = (worded.ok ? [] : worded.violations).map((v) => (v.startsWith("(body)") ? prefix + v.slice(6) : `${prefix}.${v}`));
      const record = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
      setAside.push({
        index,
        id: typeof record.id === "string" ? record.id : undefined,
        name: typeof record.name === "string" ? record.name : undefined,
        violations,
      });
    });
    return { ...body, [key]: items, setAside } as TolerantList<K, T>;
  }) as unknown as z.ZodType<TolerantList<K, T>>;
}
