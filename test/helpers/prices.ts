/**
 * Prices as a test derives them itself, never from the estimate functions under test
 * (contract/estimate.ts) nor as hand-copied numbers: a GPU type's list price from the service's
 * catalog, read over HTTP with no project code; a sandbox's at the rate docs/cost.md states (the
 * catalog lists no sandbox price; the service's own figure is a sandbox's `compute.costPerHr`,
 * which test/provider/cost-estimate.test.ts holds the estimate to). `dollars` prints a figure as
 * the product prints dollars (formatting only).
 */
export { formatDollars as dollars } from "../../contract/estimate";

export interface ListPrices {
  /** A GPU pod on SECURE cloud: the type's price per GPU × the count. */
  gpu(id: string, count?: number): number;
  /** A sandbox, at docs/cost.md's rate: vCPU × 0.03 + GB of memory × 0.004 + GB of container disk × 0.0002. */
  sandbox(compute: { vcpuCount: number; memoryInGb: number; containerDiskInGb: number }): number;
}

/** The prices of `service`'s catalog as they are now. */
export async function listPrices(service: { url: string; apiKey: string }): Promise<ListPrices> {
  const answer = await fetch(`${service.url}/v2/catalog/gpus`, { headers: { Authorization: `Bearer ${service.apiKey}` } });
  if (answer.status !== 200) throw new Error(`GET /v2/catalog/gpus answered ${answer.status}`);
  const { gpus } = (await answer.json()) as { gpus: Array<{ id: string; price: { secure: number } }> };
  return {
    gpu(id, count = 1) {
      const listed = gpus.find((gpu) => gpu.id === id);
      if (!listed) throw new Error(`the catalog lists no GPU type ${id}`);
      return listed.price.secure * count;
    },
    sandbox: (compute) => compute.vcpuCount * 0.03 + compute.memoryInGb * 0.004 + compute.containerDiskInGb * 0.0002,
  };
}

/** `text` as a regular expression matching it literally. */
export const literally = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
