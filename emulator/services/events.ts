/**
 * The services that came up, for the control plane (`GET /_emulator/services/events`): each
 * service of a pod's run, once per run and settings, at the emulator-clock instant it came up.
 * An end-to-end test lays them beside the request log (same clock) to check that a client
 * called something ready only once it answered.
 */
import type { ServiceKind } from "../pods/services";
import type { ServiceMode } from "../pods/record";

export interface ServiceEvent {
  podId: string;
  /** As in the pod's `ports`: `22/tcp`, `8000/http`. */
  port: string;
  service: ServiceKind;
  /** `unavailable`: up, but its HTTP answers are 503. */
  mode: ServiceMode;
  /** When the service came up (RFC 3339, emulator clock): the computed instant, not when it was noticed. */
  time: string;
  /** When its run became RUNNING. */
  runningAt: string;
  /** When the emulator noticed it (its first connection, or the host's sweep). */
  observedAt: string;
}

/** The most recent ones only, so a long run cannot grow memory without bound. */
const CAPACITY = 1000;

export class ServiceEvents {
  private entries: Array<{ key: string; event: ServiceEvent }> = [];
  private readonly keys = new Set<string>();

  /** Records the event once per `key` (a service of a run, under given settings). */
  record(key: string, event: ServiceEvent): void {
    if (this.keys.has(key)) return;
    this.keys.add(key);
    this.entries.push({ key, event });
    if (this.entries.length > CAPACITY) this.keys.delete(this.entries.shift()!.key);
  }

  list(): ServiceEvent[] {
    return this.entries.map((entry) => entry.event);
  }

  clear(): void {
    this.entries = [];
    this.keys.clear();
  }
}
