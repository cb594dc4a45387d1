/**
 * The catalog: GPU types, CPU flavors and data centers, as the fixture defines them. Static for
 * the life of a fixture (what is free lives in placement/capacity.ts), so it saves nothing.
 */
import type { CpuFlavorFixture, DataCenterFixture, Fixture, GpuTypeFixture } from "../fixture";
import type { ResourceModule } from "../module";

export class Catalog implements ResourceModule {
  readonly name = "catalog";
  private gpuTypes = new Map<string, GpuTypeFixture>();
  private cpuFlavors = new Map<string, CpuFlavorFixture>();
  private dataCenters = new Map<string, DataCenterFixture>();

  reset(fixture: Fixture): void {
    this.gpuTypes = new Map(fixture.gpuTypes.map((g) => [g.id, g]));
    this.cpuFlavors = new Map(fixture.cpuFlavors.map((c) => [c.id, c]));
    this.dataCenters = new Map(fixture.dataCenters.map((d) => [d.id, d]));
  }

  /** The catalog comes from the fixture, which the state file already holds. */
  snapshot(): null {
    return null;
  }

  restore(_slice: unknown, fixture: Fixture): void {
    this.reset(fixture);
  }

  gpuType(id: string): GpuTypeFixture | undefined {
    return this.gpuTypes.get(id);
  }

  cpuFlavor(id: string): CpuFlavorFixture | undefined {
    return this.cpuFlavors.get(id);
  }

  dataCenter(id: string): DataCenterFixture | undefined {
    return this.dataCenters.get(id);
  }

  allGpuTypes(): GpuTypeFixture[] {
    return [...this.gpuTypes.values()];
  }

  allCpuFlavors(): CpuFlavorFixture[] {
    return [...this.cpuFlavors.values()];
  }

  allDataCenters(): DataCenterFixture[] {
    return [...this.dataCenters.values()];
  }

  /** Serverless pools: the distinct `pool` of the GPU types. */
  gpuPools(): string[] {
    return [...new Set(this.allGpuTypes().map((g) => g.pool).filter((p): p is string => p !== null))];
  }

  gpuTypesOfPool(pool: string): string[] {
    return this.allGpuTypes()
      .filter((g) => g.pool === pool)
      .map((g) => g.id);
  }
}
