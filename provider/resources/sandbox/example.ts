/**
 * The smallest Sandbox a program can declare: an image and the smallest compute. The generic
 * tests (test/provider/every-kind.test.ts) check, create, read and delete it. Types only: a leaf module.
 */
import type { InputValues } from "../definition";
import type { SANDBOX_INPUTS } from "./inputs";

export const EXAMPLE = {
  image: "python:3.12-slim",
  compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 },
} as const satisfies InputValues<typeof SANDBOX_INPUTS>;
