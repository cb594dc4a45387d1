/**
 * The emulated service: every resource module, the clock, the store and the cross-cutting state
 * (rate limits, faults, request log). Owns reset, save and restore; knows nothing about HTTP.
 */
import { Clock, type ClockState } from "./clock";
import { Faults } from "./faults";
import { parseFixture, type Fixture } from "./fixture";
import { LogStreams } from "./logs/stream";
import type { ResourceModule, World } from "./module";
import type { Timings } from "./options";
import { RateLimiter } from "./rate-limit";
import { RequestLog } from "./request-log";
import { Accounts } from "./resources/accounts";
import { Catalog } from "./resources/catalog";
import { Hub } from "./resources/hub";
import { Logs } from "./resources/logs";
import { Pods } from "./resources/pods";
import { Sandboxes } from "./resources/sandboxes";
import { Serverless } from "./resources/serverless";
import { Templates } from "./resources/templates";
import { Volumes } from "./resources/volumes";
import { Router, type Route } from "./router";
import type { Shape } from "./shape";
import { STATE_VERSION, Store } from "./store";

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
  readonly templates = new Templates();
  readonly volumes: Volumes = new Volumes(this);
  readonly pods: Pods = new Pods(this);
  readonly sandboxes: Sandboxes = new Sandboxes(this);
  readonly serverless: Serverless = new Serverless(this);
  readonly hub = new Hub();
  readonly logStreams = new LogStreams(this.clock);
  readonly logs: Logs = new Logs(this, this.logStreams);
  readonly rateLimiter = new RateLimiter();
  readonly faults = new Faults();
  readonly requestLog = new RequestLog();
  readonly router: Router;
  fixture: Fixture;
  /** How answers are shaped (shape/); a run-time setting like the timings, not saved. */
  shape: Shape;
  private failNext = { pod: 0, sandbox: 0 };
  private readonly store: Store;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(options: { fixture: Fixture; timings: Timings; dataDir?: string; shape?: Shape }) {
    this.fixture = options.fixture;
    this.shape = options.shape ?? "seed";
    this.timings = { ...options.timings };
    this.store = new Store(options.dataDir);
    this.router = new Router(this.routes());
  }

  /** Order matters: the catalog is reset before pods, which reserve capacity on it. */
  private modules(): ResourceModule[] {
    return [this.accounts, this.catalog, this.templates, this.volumes, this.pods, this.sandboxes, this.serverless, this.hub];
  }

  private routes(): Array<Route<unknown>> {
    return [...this.modules().flatMap((m) => m.routes()), ...this.logs.routes()];
  }

  /** Restores the saved state when the data directory has one, else starts from the fixture. */
  start(): "restored" | "fresh" {
    const saved = this.store.load() as SavedState | undefined;
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
    for (const module of this.modules()) module.restore(saved.modules[module.name], this.fixture);
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
    if (this.store.durable) this.store.save(this.snapshot());
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
