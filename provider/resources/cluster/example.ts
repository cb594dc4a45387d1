/**
 * The smallest Cluster a program can declare: two nodes of one GPU each (a cluster has at least
 * two), of a type offered on SECURE, and an image. The generic tests
 * (test/provider/every-kind.test.ts) check, create, read and delete it. Types only: a leaf module.
 */
import type { InputValues } from "../definition";
import type { CLUSTER_INPUTS } from "./inputs";

export const EXAMPLE = {
  type: "TRAINING",
  compute: { gpuTypeId: "NVIDIA H100 80GB HBM3", gpuCountPerPod: 1, podCount: 2 },
  image: "alpine",
} as const satisfies InputValues<typeof CLUSTER_INPUTS>;
