/**
 * The cross-field rules of pod create: a request that passes the schema (422 rules) can still
 * be rejected with 400 for these. Kept beside the schema so the SDK (before sending) and the
 * emulator (on receipt) enforce one list.
 */
import { storedArgs } from "./command";
import type { CreatePodRequest, UpdatePodRequest } from "./pods";

export function createPodCrossFieldViolations(request: CreatePodRequest): string[] {
  const out: string[] = [];
  if (request.gpu && request.cpu) out.push("gpu, cpu: exactly one of gpu or cpu must be set, not both");
  if (!request.gpu && !request.cpu) out.push("gpu, cpu: exactly one of gpu or cpu must be set");
  if (request.image === undefined && request.templateId === undefined) {
    out.push("image: is required unless templateId is set");
  }
  const mounts = request.mounts;
  if (mounts?.persistent && (mounts.network || mounts.global)) {
    out.push("mounts.persistent: cannot be combined with network or global mounts");
  }
  if (mounts?.persistent && request.cpu) out.push("mounts.persistent: is not allowed on a CPU pod");
  const cuda = request.gpu?.allowedCudaVersions;
  if (cuda && cuda.length > 0 && request.gpu?.minCudaVersion !== undefined) {
    out.push("gpu.minCudaVersion: cannot be combined with a non-empty gpu.allowedCudaVersions");
  }
  const command = storedArgs(request);
  if (command.conflict) out.push(command.conflict);
  return out;
}

/** The request-only rules of a pod PATCH (rules that need the stored pod live in the emulator). */
export function updatePodCrossFieldViolations(request: UpdatePodRequest): string[] {
  const out: string[] = [];
  if (request.mounts?.network?.length === 0) out.push("mounts.network: an empty list is not allowed in an update");
  if (request.mounts?.global?.length === 0) out.push("mounts.global: an empty list is not allowed in an update");
  const command = storedArgs(request);
  if (command.conflict) out.push(command.conflict);
  return out;
}
