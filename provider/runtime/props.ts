/** Shared handling of the property bags the dynamic-provider host passes. */
import { randomBytes } from "node:crypto";
import { nextGeneration, parseOwnerMark } from "../../sdk/ownership";
import type { Props } from "../resources/definition";
import { processSlot } from "./process-memory";


/** The reserved key holding the serialized provider; never sent to the API. */
export const PROVIDER_KEY = "__provider";

export function withoutProvider(props: Props): Props {
  const { [PROVIDER_KEY]: _provider, ...rest } = props;
  void _provider;
  return rest;
}

/**
 * Whether recorded props are of a resource the stack made: `check` gives every one an owner mark,
 * which its state keeps. A read of an object someone else made (an import, a static `get`, YAML's
 * `get`, or their refresh) records none.
 */
export function ownedByStack(recorded: Props | undefined): boolean {
  return recorded?.ownerMark !== undefined;
}

interface Nameable {
  name?: string;
  namePrefix?: string;
  nameGenerated?: boolean;
  ownerMark?: string;
}

/**
 * Fills in a generated name (`<logical name>-<8 hex>`) when none is given. A name generated
 * once is kept for the life of the resource, so later runs do not see a rename. The suffix
 * comes from the owner mark where there is one, so a create that runs again after an
 * interrupted `up` asks for the same name as the first attempt (and finds what it made).
 */
export function resolveName(inputs: Nameable, previous: Nameable, fallbackPrefix: string): void {
  if (inputs.name !== undefined) return;
  const suffix = parseOwnerMark(inputs.ownerMark)?.base.slice(0, 8) ?? randomBytes(4).toString("hex");
  inputs.name = previous.nameGenerated && previous.name ? previous.name : `${inputs.namePrefix ?? fallbackPrefix}-${suffix}`;
  inputs.nameGenerated = true;
}

/** Per stack resource (by base), the generation its replacement would carry, learned this run. */
function nextGenerations(): Map<string, string> {
  // Learned by one check, read by the replacement's check: possibly through another copy (process-memory.ts).
  return processSlot("next-generations", () => new Map<string, string>());
}

/**
 * The owner mark of the resource `check` describes (see sdk/ownership.ts). The engine checks a
 * resource the state holds with its recorded inputs as `previous`: its mark stays what the
 * live resource carries, and the generation a replacement of it would carry is remembered.
 * When the engine then replaces it, it checks the inputs again without `previous` (Pulumi
 * 3.248 `step_generator.go`), in the same provider process: that check takes the remembered
 * generation. A check without `previous` and nothing remembered is a resource the state does
 * not hold (or a targeted `--replace`, which the engine runs without any diff): the class's
 * first-generation mark. The base always comes from the current URN (the class's mark).
 */
export function resolveOwnerMark(inputs: Nameable, previous: Nameable): void {
  const current = parseOwnerMark(inputs.ownerMark);
  if (!current) {
    if (previous.ownerMark !== undefined) inputs.ownerMark = previous.ownerMark;
    return;
  }
  if (parseOwnerMark(previous.ownerMark)) {
    nextGenerations().set(current.base, nextGeneration(previous.ownerMark!, inputs.ownerMark!));
    inputs.ownerMark = previous.ownerMark;
    return;
  }
  const next = nextGenerations().get(current.base);
  if (next) inputs.ownerMark = next;
}
