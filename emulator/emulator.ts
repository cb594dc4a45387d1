/**
 * The emulated service: every resource family's store, the clock, the state file and the
 * cross-cutting state (rate limits, faults, request log). Owns reset, save and restore, and puts
 * the families' routes (and the control plane's) into the routers the gateway serves.
 */
import { accountRoutes } from "./accounts/routes";
import { Accounts } from "./accounts/store";
import { catalogRoutes } from "./catalog/routes";
import { Catalog } from "./catalog/store";
import { Clock, type ClockState } from "./clock";
import { controlRoutes } from "./control/routes";
import { Faults } from "./faults";
import { parseFixture, type Fixture } from "./fixture";
import { hubRoutes } from "./hub/routes";
import { Hub } from "./hub/store";
import { LogStreams } from "./logs/stream";
import type { ResourceModule, World } from "./module";
import type { Timings } from "./options";
import { Capacity } from "./placement/capacity";
import { podRoutes } from "./pods/routes";
import { Pods } from "./pods/store";
import { RateLimiter } from "./rate-limit";
import { RequestLog } from "./request-log";
import { Router, type ControlRoute, type Route } from "./router";
import { sandboxRoutes } from "./sandboxes/routes";
import { Sandboxes } from "./sandboxes/store";
import { serverlessRoutes } from "./serverless/routes";
import { Serverless } from "./serverless/store";
import type { Shape } from "./shape";
import { STATE_VERSION, StateFile } from "./state-file";
import { templateRoutes } from "./templates/routes";
import { Templates } from "./templates/store";
import { volumeRoutes } from "./volumes/routes";
import { Volumes } from "./volumes/store";

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

export class Emulator implements World {
  readonly clock = new Clock();
  readonly timings: Timings;
  readonly accounts = new Accounts();
  readonly catalog = new Catalog();
  readonly capacity = new Capacity(this.catalog);
  readonly templates = new Templates();
  readonly volumes = new Volumes();
  readonly pods: Pods = new Pods(this);
  readonly sandboxes = new Sandboxes();
  readonly serverless = new Serverless();
  readonly hub = new Hub();
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
  private readonly stateFile: StateFile;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(options: { fixture: Fixture; timings: Timings; dataDir?: string; shape?: Shape }) {
    this.fixture = options.fixture;
    this.shape = options.shape ?? "seed";
    this.timings = { ...options.timings };
    this.stateFile = new StateFile(options.dataDir);
    this.router = new Router([
      ...accountRoutes(this),
      ...catalogRoutes(this),
      ...templateRoutes(this),
      ...volumeRoutes(this),
      ...podRoutes(this),
      ...sandboxRoutes(this),
      ...serverlessRoutes(this),
      ...hubRoutes(this),
    ]);
    this.controlRouter = new Router(controlRoutes(this));
  }

  /** Order matters: the catalog and its capacity are reset before pods, which reserve capacity. */
  private modules(): ResourceModule[] {
    return [this.accounts, this.catalog, this.capacity, this.templates, this.volumes, this.pods, this.sandboxes, this.serverless, this.hub];
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

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.logStreams.closeAll();
  }

  /** Back to the fixture (the current one, or a new one). The clock keeps running. */
  reset(fixture: Fixture = this.fixture): void {
    this.logStreams.closeAll();
    this.fixture = fixture;
    this.failNext = { pod: 0, sandbox: 0 };
    this.rateLimiter.clear();
    const now = this.clock.now();
    for (const module of this.modules()) module.reset(fixture, now);
    this.persist();
  }

  private restore(saved: SavedState): void {
    this.fixture = parseFixture(saved.fixture);
    this.clock.restore(saved.clock);
    this.failNext = saved.failNext;
    // State files written before capacity had a module of its own kept it in the catalog's slice.
    const slices = { capacity: saved.modules.catalog, ...saved.modules };
    for (const module of this.modules()) module.restore(slices[module.name as keyof typeof slices], this.fixture);
  }

  snapshot(): SavedState {
    const modules: Record<string, unknown> = {};
    for (const module of this.modules()) modules[module.name] = module.snapshot();
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
    const podsChanged = this.pods.sweep(now);
    const sandboxesChanged = this.sandboxes.sweep(now);
    if (podsChanged || sandboxesChanged) this.persist();
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
