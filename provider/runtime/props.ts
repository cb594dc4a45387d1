/** Shared handling of the property bags the dynamic-provider host passes. */
import { randomBytes } from "node:crypto";

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
}

/**
 * Fills in a generated name (`<logical name>-<8 hex>`) when none is given. A name generated
 * once is kept for the life of the resource, so later runs do not see a rename.
 */
export function resolveName(inputs: Nameable, previous: Nameable, fallbackPrefix: string): void {
  if (inputs.name !== undefined) return;
  inputs.name = previous.nameGenerated && previous.name ? previous.name : `${inputs.namePrefix ?? fallbackPrefix}-${randomBytes(4).toString("hex")}`;
  inputs.nameGenerated = true;
}
