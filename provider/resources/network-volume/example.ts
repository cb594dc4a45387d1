/**
 * The smallest NetworkVolume a program can declare: the smallest size (10 GB) in a data center
 * that offers network volumes. The generic tests (test/provider/every-kind.test.ts) check,
 * create, read and delete it. Types only: a leaf module.
 */
import type { ExampleChange, InputValues } from "../definition";
import type { NETWORK_VOLUME_INPUTS } from "./inputs";

export const EXAMPLE = {
  dataCenterId: "US-TX-3",
  size: 10,
} as const satisfies InputValues<typeof NETWORK_VOLUME_INPUTS>;

/**
 * A change of every input the table holds (ExampleChange): each row is performed through the
 * provider protocol by the generic table, from EXAMPLE.
 */
export const CHANGES = {
  name: { to: "renamed-volume" },
  dataCenterId: { to: "EU-RO-1" },
  size: { to: 20, does: "update" },
  type: { to: "HIGH_PERFORMANCE" },
} as const satisfies Partial<Record<keyof typeof NETWORK_VOLUME_INPUTS, ExampleChange>>;
