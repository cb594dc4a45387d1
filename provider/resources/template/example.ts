/**
 * The smallest Template a program can declare: an image. The generic tests
 * (test/provider/every-kind.test.ts) check, create, read and delete it. Types only: a leaf module.
 */
import type { ExampleChange, InputValues } from "../definition";
import type { TEMPLATE_INPUTS } from "./inputs";

export const EXAMPLE = {
  image: "alpine",
} as const satisfies InputValues<typeof TEMPLATE_INPUTS>;

/**
 * A change of every input the table holds (ExampleChange): each row is performed through the
 * provider protocol by the generic table, from EXAMPLE.
 */
export const CHANGES = {
  name: { to: "renamed-template" },
  image: { to: "alpine:3.20" },
  args: { to: "sleep 1" },
  cmd: { to: ["sleep", "1"] },
  // On a template of its own: with the `args` and `cmd` of the rows before, another command is refused at check.
  entrypoint: { from: {}, to: ["/bin/sh"] },
  disk: { to: 30 },
  env: { to: { MODE: "changed" } },
  ports: { to: ["8080/http"] },
  registryId: { to: "reg_dev_ghcr" },
  mounts: { to: { persistent: { size: 20, path: "/workspace" } } },
  category: { to: "CPU" },
  isPublic: { to: true },
  serverless: { to: true },
  startSsh: { to: false },
  startJupyter: { to: false },
  allowedCudaVersions: { to: ["12.4"] },
} as const satisfies Partial<Record<keyof typeof TEMPLATE_INPUTS, ExampleChange>>;
