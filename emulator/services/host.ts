/**
 * The services of running pods, answering for real on 127.0.0.1. Each `port/protocol` of a
 * RUNNING pod gets a listener the first time the pod is read (its answer names the port at once,
 * taken from the pool), and keeps it for the whole run: the same port on every read, a new one
 * after a restart. What a connection gets is decided when it arrives, from the emulator clock:
 * before the run's services are up (pods/services.ts), and in mode `never`, it is accepted and
 * reset at once, as a container runtime's port proxy does with nothing listening behind it;
 * once up, the service of its kind answers (protocols.ts).
 *
 * Listeners close when their run is no longer RUNNING: at once on the events the pod store
 * reports (stop, exit, error, restart, terminate), otherwise at the next sweep (every 200 ms of
 * real time, and at each clock change); all of them at a reset and when the emulator closes.
 * Nothing here is saved: the settings queued for the next pods, the listeners and the events
 * live in memory only, and after a restart a pod's ports are bound afresh.
 */
import type { Services } from "../family";
import type { ResourceModule } from "../module";
import { currentRun, podStatus } from "../pods/lifecycle";
import { runningAt, type PodRecord, type PodRun, type ServiceMode, type ServiceSettings } from "../pods/record";
import { runServices, servicePort, serviceUpAt, type ServicePort } from "../pods/services";
import type { PodServiceHost } from "../pods/store";
import { iso, isoOrNull } from "../time";
import { ServiceEvents } from "./events";
import { LOOPBACK, refuse, type ConnectionHandler, type Listener } from "./listener";
import { ListenerPool } from "./pool";
import { serveSsh, serveTcp, webServer } from "./protocols";
import type { NextServices, PodServiceReport } from "./report";

/**
 * Listeners kept bound ahead of need: enough for a fleet read at once (8 pods of 2 to 4 ports
 * each, as bench scenario 11 creates), so the answer that first shows a pod RUNNING names its
 * ports, as the service's does. A larger read still gets `public: null` for a moment.
 */
export const LISTENERS_KEPT_READY = 32;
/** How often listeners of runs that ended on their own (or by a clock change) are looked for. */
const SWEEP_MS = 200;

/** What the host uses of the world: the clock a connection's fate is read from. */
export type ServiceHostWorld = Pick<Services, "clock">;

/** One port of a run: its listener once bound, and since when (emulator clock). */
interface PortSlot {
  service: ServicePort;
  listener?: Listener;
  since?: number;
  binding: boolean;
}

/** The listeners of one run of one pod. */
interface RunPorts {
  pod: PodRecord;
  run: PodRun;
  slots: Map<string, PortSlot>;
}

export class ServiceHost implements ResourceModule, PodServiceHost {
  readonly address = LOOPBACK;
  readonly events = new ServiceEvents();
  private readonly pool = new ListenerPool(LISTENERS_KEPT_READY);
  /** By pod id: the listeners of its current run. */
  private readonly runs = new Map<string, RunPorts>();
  private next: NextServices = { pending: 0, mode: "normal", delayMs: null };
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly world: ServiceHostWorld) {}

  // ---- as a store: reset, nothing saved, swept ------------------------------------------------

  /** Back to the fixture: every listener closes (a port of the old state must answer nothing) and nothing is queued. */
  reset(): void {
    for (const ports of [...this.runs.values()]) void this.release(ports);
    this.next = { pending: 0, mode: "normal", delayMs: null };
    this.pool.fill();
  }

  /** In memory only: nothing goes to the state file. */
  snapshot(): undefined {
    return undefined;
  }

  restore(): void {
    this.pool.fill();
  }

  /** Closes the listeners of runs that are no longer RUNNING; notes the services that came up. Saves nothing (false). */
  sweep(now: number): boolean {
    for (const ports of [...this.runs.values()]) {
      if (!this.current(ports, now)) {
        void this.release(ports);
        continue;
      }
      const upAt = serviceUpAt(ports.pod, ports.run);
      if (upAt !== null && upAt <= now) for (const slot of ports.slots.values()) this.observe(ports, slot.service, upAt, now);
    }
    if (this.runs.size === 0) this.stopSweeping();
    return false;
  }

  /** Closes every listener and connection; resolves once every port is free. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopSweeping();
    const releasing = [...this.runs.values()].map((ports) => this.release(ports));
    await Promise.all([...releasing, this.pool.close()]);
  }

  // ---- what the pods store asks (PodServiceHost) ----------------------------------------------

  publicPort(pod: PodRecord, spec: string, now: number): number | null {
    if (this.closed || podStatus(pod, now) !== "RUNNING") return null;
    const ports = this.portsOf(pod);
    let slot = ports.slots.get(spec);
    if (!slot) {
      const service = servicePort(spec);
      if (!service) return null;
      slot = { service, binding: false };
      ports.slots.set(spec, slot);
    }
    if (!slot.listener && !slot.binding) this.bind(ports, slot, now);
    this.startSweeping();
    return slot.listener?.port ?? null;
  }

  takeNext(now: number): ServiceSettings | undefined {
    if (this.next.pending <= 0) return undefined;
    this.next.pending--;
    return { mode: this.next.mode, delayMs: this.next.delayMs, since: now };
  }

  runEnded(pod: PodRecord): void {
    const ports = this.runs.get(pod.id);
    if (ports) void this.release(ports);
  }

  settingsChanged(pod: PodRecord): void {
    for (const slot of this.runs.get(pod.id)?.slots.values() ?? []) slot.listener?.dropConnections();
  }

  // ---- what the control plane asks ------------------------------------------------------------

  /** The next `count` created pods take these settings (a cluster's members one each); replaces what was queued. */
  setNext(settings: { mode: ServiceMode; delayMs?: number; count: number }): NextServices {
    this.next = { pending: settings.count, mode: settings.mode, delayMs: settings.delayMs ?? null };
    return { ...this.next };
  }

  report(pod: PodRecord, now: number): PodServiceReport {
    const run = currentRun(pod);
    const underWay = pod.terminatedAt === undefined && !run.end;
    const upAt = underWay ? serviceUpAt(pod, run) : null;
    const ports = this.runs.get(pod.id);
    const mine = ports && ports.run === run ? ports : undefined;
    const running = podStatus(pod, now) === "RUNNING";
    return {
      podId: pod.id,
      mode: pod.service?.mode ?? "normal",
      delayMs: pod.service?.delayMs ?? null,
      upAt: isoOrNull(upAt),
      ports: runServices(pod, run).map((service) => {
        const slot = mine?.slots.get(service.spec);
        const listening = slot?.listener !== undefined;
        return {
          port: service.spec,
          service: service.kind,
          public: slot?.listener?.port ?? null,
          listening,
          listeningSince: isoOrNull(slot?.since ?? null),
          up: listening && running && upAt !== null && now >= upAt,
        };
      }),
    };
  }

  // ---- listeners and connections --------------------------------------------------------------

  /** The listeners of the pod's current run (a new, empty set once the run changed). */
  private portsOf(pod: PodRecord): RunPorts {
    const run = currentRun(pod);
    const known = this.runs.get(pod.id);
    if (known && known.pod === pod && known.run === run) return known;
    if (known) void this.release(known);
    const ports: RunPorts = { pod, run, slots: new Map() };
    this.runs.set(pod.id, ports);
    return ports;
  }

  /** From the pool at once; else one of its own, reported once bound. */
  private bind(ports: RunPorts, slot: PortSlot, now: number): void {
    const ready = this.pool.take();
    if (ready) {
      this.assign(ports, slot, ready, now);
      return;
    }
    slot.binding = true;
    void this.pool.bindOne().then((listener) => {
      slot.binding = false;
      if (!listener) return;
      if (this.runs.get(ports.pod.id) === ports && !this.closed) this.assign(ports, slot, listener, this.world.clock.now());
      else void listener.close();
    });
  }

  private assign(ports: RunPorts, slot: PortSlot, listener: Listener, now: number): void {
    slot.listener = listener;
    slot.since = now;
    const serve = this.handlerOf(ports, slot.service);
    listener.serve((socket) => {
      const at = this.world.clock.now();
      // A run that has ended (the sweep has not closed its listener yet) serves nothing.
      if (this.runs.get(ports.pod.id) !== ports || !this.current(ports, at)) return refuse(socket);
      const upAt = serviceUpAt(ports.pod, ports.run);
      if (upAt === null || at < upAt) return refuse(socket);
      this.observe(ports, slot.service, upAt, at);
      serve(socket);
    });
  }

  private handlerOf(ports: RunPorts, service: ServicePort): ConnectionHandler {
    switch (service.kind) {
      case "ssh":
        return serveSsh;
      case "http":
        return webServer(() => ports.pod.service?.mode === "unavailable", () => this.world.clock.now());
      case "tcp":
        return serveTcp;
    }
  }

  /** The run is still the pod's current one, and RUNNING. */
  private current(ports: RunPorts, now: number): boolean {
    return currentRun(ports.pod) === ports.run && podStatus(ports.pod, now) === "RUNNING";
  }

  private release(ports: RunPorts): Promise<unknown> {
    if (this.runs.get(ports.pod.id) === ports) this.runs.delete(ports.pod.id);
    const closing: Array<Promise<void>> = [];
    for (const slot of ports.slots.values()) if (slot.listener) closing.push(slot.listener.close());
    return Promise.all(closing);
  }

  /** Records the service coming up, once per run, port and settings. */
  private observe(ports: RunPorts, service: ServicePort, upAt: number, now: number): void {
    const mode = ports.pod.service?.mode ?? "normal";
    const ranAt = runningAt(ports.run);
    this.events.record(`${ports.pod.id} ${ranAt} ${service.spec} ${upAt} ${mode}`, {
      podId: ports.pod.id,
      port: service.spec,
      service: service.kind,
      mode,
      time: iso(upAt),
      runningAt: iso(ranAt),
      observedAt: iso(now),
    });
  }

  // ---- the sweep's timer: only while some run has listeners ---------------------------------

  private startSweeping(): void {
    if (this.sweeper || this.closed) return;
    this.sweeper = setInterval(() => this.sweep(this.world.clock.now()), SWEEP_MS);
    this.sweeper.unref();
  }

  private stopSweeping(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
