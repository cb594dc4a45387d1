/**
 * The smallest Pod a program can declare: a 2-vCPU CPU pod (no GPU to find). The generic tests
 * (test/provider/every-kind.test.ts) check, create, read and delete it against the emulator.
 * Types only: a leaf module.
 */
import type { InputValues } from "../definition";
import type { POD_INPUTS } from "./inputs";

export const EXAMPLE = {
  image: "alpine",
  cpu: { id: "cpu3c", vcpuCount: 2 },
} as const satisfies InputValues<typeof POD_INPUTS>;
