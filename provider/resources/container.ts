/**
 * The container settings a pod, a sandbox, a template, a serverless endpoint and a cluster share:
 * each one's type, stated once here. Each kind words its own doc (a pod's disk is not a worker's)
 * and says what a change does; the note that a secret env value stays secret is added here.
 */
import { stringList, stringMap } from "../properties";
import type { ChangeEffect } from "./definition";

const CONTAINER_TYPES = {
  image: { type: "string" },
  templateId: { type: "string" },
  args: { type: "string" },
  cmd: stringList,
  entrypoint: stringList,
  disk: { type: "integer" },
  env: stringMap,
  ports: stringList,
  /** A pod's name for it; the other kinds' is `registryId`. */
  registry: { type: "string" },
  registryId: { type: "string" },
} as const;

type ContainerField = keyof typeof CONTAINER_TYPES;

/** Every env input's promise, however the kind words the rest. */
const ENV_SECRETS = "Values given as secrets stay secret in state.";

/** The input `field` of a container: its shared type, what a change does, and this kind's doc. */
export function containerInput<F extends ContainerField, C extends ChangeEffect>(field: F, onChange: C, doc: string) {
  return { ...CONTAINER_TYPES[field], onChange, doc: field === "env" ? `${doc} ${ENV_SECRETS}` : doc } as const;
}
