/**
 * The smallest Template a program can declare: an image. The generic tests
 * (test/provider/every-kind.test.ts) check, create, read and delete it. Types only: a leaf module.
 */
import type { InputValues } from "../definition";
import type { TEMPLATE_INPUTS } from "./inputs";

export const EXAMPLE = {
  image: "alpine",
} as const satisfies InputValues<typeof TEMPLATE_INPUTS>;
