/**
 * `compute:index:NetworkVolume`: storage in one data center that pods and endpoints mount.
 * The name changes in place and the size grows in place (PATCH); the data center and the tier
 * are fixed, and storage never shrinks (refused at preview, naming both sizes). It has no env
 * or labels, so its owner mark rides in its name (wire.ts). Deleting a volume that something
 * outside the stack still mounts is refused by the service (409) and deletes nothing.
 */
import { CreateNetworkVolumeRequest, type NetworkVolume } from "../../../sdk";
import type { CheckFailure } from "../check-failures";
import { isUnknown } from "../unknowns";
import { inputsOf, same, type CheckedInputs, type DiffResult, type HookContext, type OutputValues, type Props, type Recorded, type ResourceDefinition } from "../definition";
import { CHANGES, EXAMPLE } from "./example";
import { markInName, presentOnly, programName, renamedKeepingMark, schemaViolations, toWire, uniquelyNamed } from "../wire";
import { NETWORK_VOLUME_INPUTS } from "./inputs";
import { NETWORK_VOLUME_OUTPUTS } from "./outputs";

export type NetworkVolumeInputs = CheckedInputs<typeof NETWORK_VOLUME_INPUTS>;
export type NetworkVolumeFacts = OutputValues<typeof NETWORK_VOLUME_OUTPUTS>;
type Context = HookContext<NetworkVolume>;

const RENAMES = { dataCenterId: "dataCenter" } as const;
const FIELDS = ["name", "dataCenterId", "size", "type"] as const;

function wireRequest(inputs: Props): Props {
  return toWire(inputs, FIELDS, RENAMES);
}

/** The size rule against the recorded volume: it only grows (unless it is being replaced anyway). */
function shrinkFailures(inputs: NetworkVolumeInputs, previous: Props): CheckFailure[] {
  const before = previous.size;
  const after = inputs.size;
  if (typeof before !== "number" || typeof after !== "number" || after >= before) return [];
  const replaced = !same(previous.dataCenterId, inputs.dataCenterId) || !same(previous.type, inputs.type);
  if (replaced) return [];
  return [{ property: "size", reason: `cannot shrink from ${before} GB to ${after} GB: network volume storage only grows (a smaller volume needs a new resource)` }];
}

/**
 * The data center must offer network volumes, of the tier asked for (catalog, read-only), for a
 * new volume or a moved one: one that exists is not judged again by what the catalog offers
 * today. A catalog that cannot be read leaves the rule to the service at create.
 */
async function catalogFailures(context: Context, inputs: NetworkVolumeInputs, previous: Props): Promise<CheckFailure[]> {
  const { dataCenterId, type } = inputs;
  if (typeof dataCenterId !== "string" || isUnknown(dataCenterId) || isUnknown(type)) return [];
  if (previous.dataCenterId === dataCenterId && previous.type === type) return [];
  const dataCenters = await context.cached("catalog:datacenters", 300, () => context.api.catalog.dataCenters()).catch(() => undefined);
  if (!dataCenters) return [];
  const dc = dataCenters.find((d) => d.id === dataCenterId);
  if (!dc) return [{ property: "dataCenterId", reason: `"${dataCenterId}" is not a data center of the catalog (${dataCenters.map((d) => d.id).join(", ")})` }];
  if (dc.networkVolumeTypes.length === 0) return [{ property: "dataCenterId", reason: `data center ${dc.id} does not offer network volumes` }];
  if (type !== undefined && !dc.networkVolumeTypes.includes(type)) {
    return [{ property: "type", reason: `data center ${dc.id} offers ${dc.networkVolumeTypes.join(", ")} volumes, not ${type}` }];
  }
  return [];
}

function facts(volume: NetworkVolume): NetworkVolumeFacts {
  return { volumeId: volume.id, serviceName: volume.name, appliedSize: volume.size, appliedType: volume.type ?? null, appliedDataCenterId: volume.dataCenter };
}

/** The size's own rule, beyond the input list's table: growing updates; a smaller size is refused by `check`. */
function diff(olds: Recorded<NetworkVolumeInputs, NetworkVolumeFacts>, news: NetworkVolumeInputs, table: DiffResult): DiffResult {
  const result = { replaces: [...table.replaces], updates: [...table.updates] };
  if (!same(olds.size, news.size)) {
    if (isUnknown(news.size) || (typeof olds.size === "number" && news.size < olds.size)) result.replaces.push("size");
    else result.updates.push("size");
  }
  return result;
}

/** Renames and grows to match the inputs (an adopted volume too); a no-op when it matches. */
async function converge(context: Context, inputs: NetworkVolumeInputs, volume: NetworkVolume): Promise<NetworkVolume> {
  const patch: { name?: string; size?: number } = {};
  if (programName(volume.name) !== inputs.name) patch.name = renamedKeepingMark(volume.name, inputs.name);
  if (inputs.size > volume.size) patch.size = inputs.size;
  if (Object.keys(patch).length === 0) return volume;
  const updated = await context.api.networkVolumes.update(volume.id, patch);
  context.report(`updated ${Object.keys(patch).join(", ")}`);
  return updated;
}

export const networkVolumeResource = {
  name: "NetworkVolume",
  kind: "volume",
  description: "A network volume: storage in one data center that pods and serverless endpoints mount.",
  inputs: NETWORK_VOLUME_INPUTS,
  outputs: NETWORK_VOLUME_OUTPUTS,
  idOutput: "volumeId",
  deletedAs: "deleted",
  unpriced: "network volume storage is billed, but the catalog gives no storage price (docs/cost.md)",
  strays: "report",

  family: (api) => ({ get: (id) => api.networkVolumes.get(id), page: () => api.networkVolumes.page(), delete: (id) => api.networkVolumes.delete(id) }),
  states: presentOnly("volumeId"),
  owner: markInName,

  violations: (inputs) => schemaViolations(CreateNetworkVolumeRequest, wireRequest(inputs), RENAMES),
  checkHook: async (context, inputs, previous) => [...shrinkFailures(inputs, previous), ...(await catalogFailures(context, inputs, previous))],
  // The size is left out: a volume left behind smaller than now wanted is adopted and grown.
  markSpec: (_request, inputs) => ({ dataCenter: inputs.dataCenterId, type: inputs.type }),
  create: async ({ api }, request) => ({ live: await api.networkVolumes.create(wireRequest(request) as CreateNetworkVolumeRequest, { uniqueName: uniquelyNamed(request) }) }),
  settle: converge,

  facts,
  imported: (volume) => ({ name: programName(volume.name), dataCenterId: volume.dataCenter, size: volume.size, ...(volume.type ? { type: volume.type } : {}) }),
  refreshed(olds, volume) {
    const inputs = inputsOf(NETWORK_VOLUME_INPUTS, olds);
    // A rename or a growth behind the stack's back shows as drift.
    inputs.name = programName(volume.name);
    inputs.size = volume.size;
    return inputs;
  },
  diff,
  async update(context, id, _olds, news) {
    return { live: await converge(context, news, await context.api.networkVolumes.get(id)) };
  },
  example: EXAMPLE,
  exampleChanges: CHANGES,
} satisfies ResourceDefinition<NetworkVolumeInputs, NetworkVolume, NetworkVolumeFacts>;
