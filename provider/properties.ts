/**
 * The type vocabulary the input and output lists (provider/resources/<resource>/) and
 * the native plugin's package schema (provider/native/schema.ts) share: a value's type, as a
 * Pulumi package schema spells it, and the TypeScript type it stands for.
 *
 * Types only: the runtime (loaded by the dynamic-provider process, kept light) imports these.
 */

interface Presence {
  /** The value may be `null` (a fact the service does not know). */
  readonly nullable?: boolean;
  /** A member of an object that may be absent. */
  readonly optional?: boolean;
}

/**
 * A value's type. `integer` is a whole number (a JavaScript number all the same); `enum` lists
 * a string's allowed values; a `map` is an object with any keys, each holding an
 * `additionalProperties` value (the schema's own spelling: `{type: object, additionalProperties}`).
 */
export type FieldSpec =
  | (Presence & { readonly type: "string"; readonly enum?: readonly string[] })
  | (Presence & { readonly type: "number" | "integer" | "boolean" })
  | (Presence & { readonly type: "array"; readonly items: FieldSpec })
  | (Presence & { readonly type: "map"; readonly additionalProperties: FieldSpec })
  | (Presence & { readonly type: "object"; readonly properties: Readonly<Record<string, FieldSpec>> });

/** The two shapes most lists use: a list of strings, and a map of strings. */
export const stringList = { type: "array", items: { type: "string" } } as const;
export const stringMap = { type: "map", additionalProperties: { type: "string" } } as const;

/** The TypeScript type of a value described by `F`. */
export type ValueOf<F> = F extends { nullable: true } ? BaseValueOf<F> | null : BaseValueOf<F>;

type BaseValueOf<F> = F extends { type: "string"; enum: readonly (infer E)[] }
  ? E
  : F extends { type: "string" }
    ? string
    : F extends { type: "number" | "integer" }
      ? number
      : F extends { type: "boolean" }
        ? boolean
        : F extends { type: "array"; items: infer I }
          ? Array<ValueOf<I>>
          : F extends { type: "map"; additionalProperties: infer V }
            ? Record<string, ValueOf<V>>
            : F extends { type: "object"; properties: infer P }
              ? ObjectOf<P>
              : never;

type Flatten<T> = { [K in keyof T]: T[K] };
type OptionalKeys<P> = { [K in keyof P]: P[K] extends { optional: true } ? K : never }[keyof P];
type ObjectOf<P> = Flatten<
  { -readonly [K in Exclude<keyof P, OptionalKeys<P>>]: ValueOf<P[K]> } & { -readonly [K in OptionalKeys<P>]?: ValueOf<P[K]> }
>;
