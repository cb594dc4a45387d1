/**
 * The catalog: GPU types, CPU flavors and data centers, as the fixture defines them. Static for
 * the life of a fixture (what is free lives in placement/capacity.ts), so it saves nothing.
 */
import { globalNetworkingRefusal } from "../../contract";
import type { CpuFlavorFixture, DataCenterFixture, Fixture, GpuTypeFixture } from "../fixture";
import { byId, type Keyed } from "../keyed";
import type { ResourceModule } from "../module";

export class Catalog implements ResourceModule {
  // Replaced whole by a reset; read only.
  gpuTypes: Keyed<GpuTypeFixture> = byId([]);
  cpuFlavors: Keyed<CpuFlavorFixture> = byId([]);
  dataCenters: Keyed<DataCenterFixture> = byId([]);

  reset(fixture: Fixture): void {
    this.gpuTypes = byId(fixture.gpuTypes);
    this.cpuFlavors = byId(fixture.cpuFlavors);
    this.dataCenters = byId(fixture.dataCenters);
  }

  /** The catalog comes from the fixture, which the state file already holds. */
  snapshot(): null {
    return null;
  }

  restore(_slice: unknown, fixture: Fixture): void {
    this.reset(fixture);
  }

  /** Serverless pools: the distinct `pool` of the GPU types. */
  gpuPools(): string[] {
    return [...new Set(this.gpuTypes.all().map((g) => g.pool).filter((p): p is string => p !== null))];
  }

  gpuTypesOfPool(pool: string): string[] {
    return this.gpuTypes.all()
      .filter((g) => g.pool === pool)
      .map((g) => g.id);
  }

  /** Null when a pod of this GPU type (or a CPU pod) may use global networking in its data center; otherwise why not (v2: globalNetworking). */
  globalNetworkingRefusal(pod: { gpu?: { id: string }; dataCenterId: string }): string | null {
    const gpuType = pod.gpu ? this.gpuTypes.get(pod.gpu.id) : undefined;
    // A GPU type the catalog does not know is refused: the service cannot vouch for it.
    const why = globalNetworkingRefusal({
      gpu: pod.gpu !== undefined,
      manufacturer: gpuType?.manufacturer ?? "UNKNOWN",
      dataCenterGlobalNetwork: this.dataCenters.get(pod.dataCenterId)?.globalNetwork ?? false,
    });
    return why ? `Global networking ${why} (data center ${pod.dataCenterId})` : null;
  }
}
