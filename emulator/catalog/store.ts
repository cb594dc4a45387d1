/**
 * The catalog: GPU types, CPU flavors and data centers, as the fixture defines them. Static for
 * the life of a fixture (what is free lives in placement/capacity.ts), so it saves nothing.
 */
import type { CpuFlavorFixture, DataCenterFixture, Fixture, GpuTypeFixture } from "../fixture";
import { byId, type Keyed } from "../keyed";
import type { ResourceModule } from "../module";

export class Catalog implements ResourceModule {
  readonly name = "catalog";
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
}
