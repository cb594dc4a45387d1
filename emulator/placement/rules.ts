/**
 * The creation rules pods, clusters, sandboxes and serverless endpoints share, stated once: which
 * template a create may use, which CPU flavor choices the catalog offers, which data centers it
 * may go to (a network volume's own), which GPU pools the account may use, and whether the
 * account can pay for it.
 * Each family's rules.ts calls these in the order the contract gives for it.
 */
import { templateUseViolation, type TemplateUse } from "../../contract";
import type { AccountRecord } from "../accounts/store";
import type { Catalog } from "../catalog/store";
import type { CpuFlavorFixture, GpuTypeFixture } from "../fixture";
import { ApiError, badRequest, unprocessable } from "../http";
import type { TemplateRecord, Templates } from "../templates/store";
import type { Volumes } from "../volumes/store";

/**
 * The template a create names: own or public (404 otherwise, never 403: no one learns that
 * another account's template exists), and of the kind this use takes (422 otherwise).
 */
export function usableTemplate(templates: Templates, accountId: string, templateId: string | undefined, use: TemplateUse): TemplateRecord | undefined {
  if (templateId === undefined) return undefined;
  const template = templates.resolve(accountId, templateId);
  const wrong = templateUseViolation(template, use);
  if (wrong) throw unprocessable("The request does not match the contract", [wrong]);
  return template;
}

/** Preference order when given (unknown ids ignored unless none is known); else every data center. */
export function candidateDataCenters(catalog: Catalog, requested: string[] | undefined): string[] {
  if (!requested || requested.length === 0) return catalog.dataCenters.all().map((d) => d.id);
  const known = requested.filter((id) => catalog.dataCenters.get(id));
  if (known.length === 0) throw badRequest(`None of the requested data centers exist: ${requested.join(", ")}`);
  return known;
}

/**
 * Where a new pod (or every node of a cluster) that mounts this network volume may go: the
 * volume's own data center, which must be among the candidates (400); an unknown volume is 404.
 */
export function networkVolumeDataCenters(volumes: Volumes, accountId: string, volumeId: string, candidates: string[], what: "pod" | "cluster"): string[] {
  const volume = volumes.own(accountId, volumeId);
  if (!candidates.includes(volume.dataCenter)) {
    throw badRequest(
      `Network volume ${volume.id} is in ${volume.dataCenter}, which is not among the requested data centers (${candidates.join(", ")}); a ${what} can mount it only in its own data center`,
    );
  }
  return [volume.dataCenter];
}

/** A GPU pool reserved to some accounts is 403 for the others (before balance and capacity: the contract's order). */
export function checkGpuAccess(gpuType: GpuTypeFixture, account: AccountRecord): void {
  if (gpuType.restrictedToAccounts && !gpuType.restrictedToAccounts.includes(account.id)) {
    throw new ApiError(403, `This account cannot access the ${gpuType.name} pool`);
  }
}

/** One hour of the new resource must be covered (v2: 402, "no candidate will succeed"). */
export function checkBalance(account: AccountRecord, costPerHour: number, what: "pod" | "sandbox" | "cluster"): void {
  if (account.balance < costPerHour) {
    throw new ApiError(
      402,
      `Insufficient balance: this ${what} costs $${costPerHour.toFixed(2)}/hr and the account balance is $${account.balance.toFixed(2)}`,
    );
  }
}

/** The memory, in GB, a CPU flavor gives a vCPU count: ⌊vCPUs × its RAM per vCPU⌋ (CPU pods and CPU endpoints alike). */
export function cpuMemoryGb(flavor: CpuFlavorFixture, vcpuCount: number): number {
  return Math.floor(vcpuCount * flavor.ramGbPerVcpu);
}

/**
 * The catalog flavor a CPU choice names, or why the catalog refuses it (decisions 5 and 20:
 * 400): an unknown flavor, or a vCPU count outside its range. `at` is the choice's field path
 * (`cpu`, `cpu[1]`), so the violation names the entry.
 */
export function cpuFlavorOf(
  catalog: Catalog,
  choice: { id: string; vcpuCount: number },
  at: string,
): { flavor: CpuFlavorFixture; violation?: undefined } | { flavor?: undefined; violation: string } {
  const flavor = catalog.cpuFlavors.get(choice.id);
  if (!flavor) return { violation: `${at}.id: unknown CPU flavor "${choice.id}"; GET /v2/catalog/cpus lists the flavor ids` };
  if (choice.vcpuCount < flavor.vcpu.min || choice.vcpuCount > flavor.vcpu.max) {
    return { violation: `${at}.vcpuCount: ${choice.vcpuCount} is not valid for ${flavor.id} (${flavor.vcpu.min} to ${flavor.vcpu.max} vCPUs)` };
  }
  return { flavor };
}
