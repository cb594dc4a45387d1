/**
 * The emulated service: every family's store (made from the registry, families.ts), the clock,
 * the state file and the cross-cutting state (rate limits, faults, request log). Owns reset,
 * save, restore and sweep, and puts the families' routes into the routers the gateway serves;
 * each of these maps over the registry, none names a family.
 *
 * The emulator is the world the families see: it holds the `Services` and, under each family's
 * name, that family's store, and it is checked against the world every family declares it needs
 * (`PodsWorld`, `PodRoutesWorld`, `ControlWorld`, …) where the constructor hands itself over.
 */
import { Clock, type ClockState } from "./clock";
import { clockState, type ControlWorld } from "./control/routes";
import { FAMILIES, type FamilyState, type Stores } from "./families";
import type { Services } from "./family";
import { Faults } from "./faults";
import { parseFixture, type Fixture } from "./fixture";
import { LogStreams } from "./logs/stream";
import type { ResourceModule } from "./module";
import type { Timings } from "./options";
import { RateLimiter } from "./rate-limit";
import { RequestLog } from "./request-log";
import { Router, type ControlRoute, type Route } from "./router";
import type { Shape } from "./shape";
import { STATE_VERSION, StateFile } from "./state-file";

interface SavedState {
  version: number;
  savedAt: string;
  fixture: Fixture;
  clock: ClockState;
  failNext: { pod: number; sandbox: number };
  modules: Record<string, unknown>;
}

/** Derived expiries are written down this often (reads never wait for it). */
const SWEEP_MS = 1000;

/** Every store is a member of the emulator, under its family's name (made in the constructor). */
export interface Emulator extends Stores {}

export class Emulator implements Services, ControlWorld {
  readonly clock = new Clock();
  readonly timings: Timings;
  readonly logStreams = new LogStreams(this.clock);
  readonly rateLimiter = new RateLimiter();
  readonly faults = new Faults();
  readonly requestLog = new RequestLog();
  readonly router: Router<Route<unknown>>;
  readonly controlRouter: Router<ControlRoute<unknown>>;
  fixture: Fixture;
  /** How answers are shaped (shape/); a run-time setting like the timings, not saved. */
  shape: Shape;
  private failNext = { pod: 0, sandbox: 0 };
  /** The stores, in registry order, with their family's name and part of the control plane's state. */
  private readonly stores: Array<{ name: string; store: ResourceModule; state?: (now: number) => object }> = [];
  private readonly stateFile: StateFile;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(options: { fixture: Fixture; timings: Timings; dataDir?: string; shape?: Shape }) {
    this.fixture = options.fixture;
    this.shape = options.shape ?? "seed";
    this.timings = { ...options.timings };
    this.stateFile = new StateFile(options.dataDir);
    for (const family of FAMILIES) {
      if (!family.store) continue;
      const store: ResourceModule = family.store(this);
      Object.assign(this, { [family.name]: store });
      // Each family's `state` takes its own store; the loop over the union cannot pair them by type.
      const state = family.state as ((store: ResourceModule, now: number) => object) | undefined;
      this.stores.push({ name: family.name, store, state: state && ((now) => state(store, now)) });
    }
    this.router = new Router(FAMILIES.flatMap((family) => family.routes?.(this) ?? []));
    this.controlRouter = new Router(FAMILIES.flatMap((family) => family.control?.(this) ?? []));
  }

  /** Restores the saved state when the data directory has one, else starts from the fixture. */
  start(): "restored" | "fresh" {
    const saved = this.stateFile.load() as SavedState | undefined;
    if (saved) {
      if (saved.version !== STATE_VERSION) {
        throw new Error(`State file version ${saved.version} is not supported (expected ${STATE_VERSION}); delete the data directory to start over`);
      }
      this.restore(saved);
    } else {
      this.reset();
    }
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
    return saved ? "restored" : "fresh";
  }

  /** Ends open log streams and closes the pods' service listeners; resolves once their ports are free. */
  stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.logStreams.closeAll();
    return this.serviceHost.close();
  }

  /** Back to the fixture (the current one, or a new one). The clock keeps running. */
  reset(fixture: Fixture = this.fixture): void {
    this.logStreams.closeAll();
    this.fixture = fixture;
    this.failNext = { pod: 0, sandbox: 0 };
    this.rateLimiter.clear();
    const now = this.clock.now();
    for (const { store } of this.stores) store.reset(fixture, now);
    this.persist();
  }

  private restore(saved: SavedState): void {
    this.fixture = parseFixture(saved.fixture);
    this.clock.restore(saved.clock);
    this.failNext = saved.failNext;
    // State files written before capacity had a module of its own kept it in the catalog's slice.
    const slices: Record<string, unknown> = { capacity: saved.modules.catalog, ...saved.modules };
    const now = this.clock.now();
    for (const { name, store } of this.stores) store.restore(slices[name], this.fixture, now);
  }

  snapshot(): SavedState {
    const modules: Record<string, unknown> = {};
    for (const { name, store } of this.stores) modules[name] = store.snapshot();
    return {
      version: STATE_VERSION,
      savedAt: new Date().toISOString(),
      fixture: this.fixture,
      clock: this.clock.snapshot(),
      failNext: this.failNext,
      modules,
    };
  }

  persist(): void {
    if (this.stateFile.durable) this.stateFile.save(this.snapshot());
  }

  /** Writes down expiries and completed terminations that the clock has brought about. */
  sweep(): void {
    const now = this.clock.now();
    let changed = false;
    for (const { store } of this.stores) if (store.sweep?.(now)) changed = true;
    if (changed) this.persist();
  }

  /** GET /_emulator/state: everything, across accounts (pods, sandboxes and endpoints name their account). */
  state(now: number) {
    const families = Object.assign({}, ...this.stores.map(({ state }) => state?.(now))) as FamilyState;
    return {
      fixture: this.fixture.name,
      clock: clockState(this.clock),
      timings: this.timings,
      shape: this.shape,
      ...families,
      faults: this.faults.list(),
      failNext: this.failNextCounts(),
      openLogStreams: this.logStreams.count,
    };
  }

  takeFailNext(kind: "pod" | "sandbox"): boolean {
    if (this.failNext[kind] <= 0) return false;
    this.failNext[kind]--;
    return true;
  }

  setFailNext(kind: "pod" | "sandbox", count: number): void {
    this.failNext[kind] = count;
  }

  failNextCounts(): { pod: number; sandbox: number } {
    return { ...this.failNext };
  }
}

/** The answer of `GET /_emulator/state`. */
export type ControlState = ReturnType<Emulator["state"]>;
