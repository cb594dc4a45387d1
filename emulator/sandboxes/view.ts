/** Sandbox record → wire shape (contract `Sandbox`), its state and deadlines derived at each read. */
import type { z } from "zod";
import type { Sandbox } from "../../contract";
import { iso, isoOrNull } from "../time";
import type { SandboxRecord } from "./record";
import type { Sandboxes } from "./store";

export type SandboxView = z.input<typeof Sandbox>;

export function sandboxView(sandboxes: Sandboxes, sb: SandboxRecord, now: number): SandboxView {
  const d = sandboxes.derive(sb, now);
  return {
    id: sb.id,
    name: sb.name,
    state: d.state,
    templateId: sb.templateId,
    image: sb.image,
    dataCenterId: sb.dataCenterId,
    compute: sb.compute,
    ports: sb.ports,
    egressPolicy: sb.egressPolicy,
    idleTimeoutSeconds: sb.idleTimeoutSeconds,
    maxLifetimeSeconds: sb.maxLifetimeSeconds,
    lastActivityAt: iso(d.lastActivityAt),
    idleExpiresAt: iso(d.idleExpiresAt),
    expiresAt: iso(d.expiresAt),
    labels: sb.labels,
    startedAt: isoOrNull(d.startedAt),
    terminationReason: d.final?.reason ?? null,
    terminatedAt: isoOrNull(d.final?.at),
    createdAt: iso(sb.createdAt),
    updatedAt: iso(Math.max(sb.updatedAt, d.startedAt ?? 0, d.final?.at ?? 0)),
  };
}
