/** Shared handling of the property bags the dynamic-provider host passes. */
import { randomBytes } from "node:crypto";
import { nextGeneration, parseOwnerMark } from "../../sdk/ownership";

export type Props = Record<string, unknown>;

/** The reserved key holding the serialized provider; never sent to the API. */
export const PROVIDER_KEY = "__provider";

export function withoutProvider(props: Props): Props {
  const { [PROVIDER_KEY]: _provider, ...rest } = props;
  void _provider;
  return rest;
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

/**
 * The owner mark of the resource `check` describes (see sdk/ownership.ts): the class's
 * first-generation mark for a resource the state does not hold, else the generation after the
 * one recorded. Advancing on every check is what keeps a replacement from ever carrying the
 * mark of the resource it replaces; only a create writes a mark on the service.
 */
export function resolveOwnerMark(inputs: Nameable, previous: Nameable): void {
  if (parseOwnerMark(previous.ownerMark)) inputs.ownerMark = nextGeneration(previous.ownerMark!);
}
