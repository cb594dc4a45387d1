/**
 * The cross-field rules of pod create and update: a request that passes the schema (422 rules)
 * can still be rejected with 400 for these. Kept beside the schema so the SDK (before sending,
 * and the provider at preview) and the emulator (on receipt) enforce one list.
 *
 * Each rule names the top-level members it reads, so a client can judge the rules whose
 * members are valid even when other members broke their shape: every violation is reported in
 * one pass instead of a 422 round followed by a 400 round.
 */
import { storedArgs } from "./command";
import type { CreatePodRequest, UpdatePodRequest } from "./pods";

interface CrossFieldRule<R> {
  /** Top-level members the rule reads; it is not judged while one of them is invalid. */
  reads: ReadonlyArray<keyof R & string>;
  /** The violation (`field: rule` or `a, b: rule`), or undefined when the rule holds. */
  check(request: R): string | undefined;
}

/** The manufacturer the v2 document requires for global networking. */
export const GLOBAL_NETWORKING_MANUFACTURER = "NVIDIA";

/** What is known about a pod when judging global networking; unknown facts are not judged. */
export interface GlobalNetworkingFacts {
  /** Whether the pod has a GPU (`gpu` set): a CPU pod never qualifies. */
  gpu: boolean;
  /** The GPU type's `manufacturer` from the GPU catalog; undefined when not looked up. */
  manufacturer?: string;
  /** The data center's `globalNetwork` from the catalog; undefined when not known yet. */
  dataCenterGlobalNetwork?: boolean;
}

/**
 * v2 `globalNetworking`: "requires an NVIDIA GPU and a data center with global networking
 * enabled". Returns why a pod cannot have it, or undefined when nothing known rules it out.
 *
 * Only a pod without a GPU can be judged from a request alone. Whether a GPU type is NVIDIA is
 * the catalog's `manufacturer`, not something to guess from the id's spelling (ids are opaque;
 * an AMD type could be named anything), and a data center's `globalNetwork` is catalog data
 * too: callers that hold the catalog (placement, the emulator) pass those facts in.
 */
export function globalNetworkingRefusal(facts: GlobalNetworkingFacts): string | undefined {
  if (!facts.gpu) return `requires an ${GLOBAL_NETWORKING_MANUFACTURER} GPU: a CPU pod cannot have global networking`;
  if (facts.manufacturer !== undefined && facts.manufacturer !== GLOBAL_NETWORKING_MANUFACTURER) {
    return `requires an ${GLOBAL_NETWORKING_MANUFACTURER} GPU, not ${facts.manufacturer}`;
  }
  if (facts.dataCenterGlobalNetwork === false) return "requires a data center with global networking (catalog `globalNetwork`)";
  return undefined;
}

/** Decision 20 of docs/api-contract.md: the CPU catalog prices CPU pods on SECURE only. */
export const CPU_POD_CLOUD = "SECURE";

const CREATE_RULES: ReadonlyArray<CrossFieldRule<CreatePodRequest>> = [
  {
    reads: ["gpu", "cpu"],
    check: (r) =>
      r.gpu && r.cpu
        ? "gpu, cpu: exactly one of gpu or cpu must be set, not both"
        : !r.gpu && !r.cpu
          ? "gpu, cpu: exactly one of gpu or cpu must be set"
          : undefined,
  },
  {
    reads: ["image", "templateId"],
    check: (r) => (r.image === undefined && r.templateId === undefined ? "image: is required unless templateId is set" : undefined),
  },
  {
    reads: ["mounts"],
    check: (r) =>
      r.mounts?.persistent && (r.mounts.network || r.mounts.global)
        ? "mounts.persistent: cannot be combined with network or global mounts"
        : undefined,
  },
  {
    reads: ["mounts", "cpu"],
    check: (r) => (r.mounts?.persistent && r.cpu ? "mounts.persistent: is not allowed on a CPU pod" : undefined),
  },
  {
    reads: ["gpu"],
    check: (r) => {
      const cuda = r.gpu?.allowedCudaVersions;
      return cuda && cuda.length > 0 && r.gpu?.minCudaVersion !== undefined
        ? "gpu.minCudaVersion: cannot be combined with a non-empty gpu.allowedCudaVersions"
        : undefined;
    },
  },
  { reads: ["args", "cmd", "entrypoint"], check: (r) => storedArgs(r).conflict },
  {
    // A request with `cpu` describes a CPU pod (as for the persistent-mount rule above).
    reads: ["globalNetworking", "cpu"],
    check: (r) => {
      if (r.globalNetworking !== true || !r.cpu) return undefined;
      const why = globalNetworkingRefusal({ gpu: false });
      return why && `globalNetworking: ${why}`;
    },
  },
  {
    reads: ["cloud", "cpu"],
    check: (r) =>
      r.cpu && r.cloud !== undefined && r.cloud !== CPU_POD_CLOUD ? `cloud: must be ${CPU_POD_CLOUD} on a CPU pod (CPU pods run on ${CPU_POD_CLOUD} cloud only)` : undefined,
  },
];

/** The request-only rules of a pod PATCH (rules that need the stored pod live in the emulator). */
const UPDATE_RULES: ReadonlyArray<CrossFieldRule<UpdatePodRequest>> = [
  {
    reads: ["mounts"],
    check: (r) => (r.mounts?.network?.length === 0 ? "mounts.network: an empty list is not allowed in an update" : undefined),
  },
  {
    reads: ["mounts"],
    check: (r) => (r.mounts?.global?.length === 0 ? "mounts.global: an empty list is not allowed in an update" : undefined),
  },
  { reads: ["args", "cmd", "entrypoint"], check: (r) => storedArgs(r).conflict },
];

function judge<R>(rules: ReadonlyArray<CrossFieldRule<R>>, request: R, invalid: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const rule of rules) {
    if (rule.reads.some((member) => invalid.has(member))) continue;
    const violation = rule.check(request);
    if (violation) out.push(violation);
  }
  return out;
}

/**
 * The 400 rules of pod create. `invalid` names top-level members that broke their shape: the
 * request then holds only the valid members, and rules reading an invalid one are skipped.
 */
export function createPodCrossFieldViolations(request: CreatePodRequest, invalid: ReadonlySet<string> = new Set()): string[] {
  return judge(CREATE_RULES, request, invalid);
}

/** The request-only 400 rules of a pod PATCH; `invalid` as for create. */
export function updatePodCrossFieldViolations(request: UpdatePodRequest, invalid: ReadonlySet<string> = new Set()): string[] {
  return judge(UPDATE_RULES, request, invalid);
}
