/**
 * What the control plane answers about services (`GET`/`PUT /_emulator/pods/{id}/service`,
 * `PUT /_emulator/services/next`): plain types, apart from the host that builds them, so the
 * control plane's schemas and client can name them without reaching the pods store.
 */
import type { ServiceMode } from "../pods/record";
import type { ServiceKind } from "../pods/services";

/** The settings the next created pods take (`PUT /_emulator/services/next`). */
export interface NextServices {
  /** How many pods are still to take them. */
  pending: number;
  mode: ServiceMode;
  delayMs: number | null;
}

/** `GET /_emulator/pods/{id}/service`: a pod's settings and, per port, whether it listens and answers. */
export interface PodServiceReport {
  podId: string;
  mode: ServiceMode;
  /** The pod's override of `serviceStartMs`; null: the run's timing. */
  delayMs: number | null;
  /** When the current run's services come (came) up; null when they never do, or no run is under way. */
  upAt: string | null;
  ports: Array<{
    port: string;
    service: ServiceKind;
    /** The bound public port on 127.0.0.1 (what the pod's answer names); null while none is. */
    public: number | null;
    listening: boolean;
    /** Emulator-clock instant the listener was bound for this run. */
    listeningSince: string | null;
    /** A connection now gets the service (not a reset). */
    up: boolean;
  }>;
}
