/**
 * A capacity wait's deadline, kept across an interrupted `up`: a create waiting for capacity
 * (provider/resources/placement.ts `waitForCapacity`) writes its deadline to a small file under
 * the Pulumi home, named by the resource's owner mark (stack and resource, this generation), so
 * the next `up` of that stack resource on the same machine continues the wait instead of starting
 * a new one. The file goes when the create ends, whatever the outcome. A deadline already past
 * when the next `up` starts belongs to a wait that is over: a new one starts. Without an owner
 * mark (a program that gives none), nothing is kept.
 *
 * The engine keeps nothing of a create that was killed before it answered, and the service holds
 * nothing of a wait (nothing exists yet), so the machine's own disk is where this can live; a CI
 * job on another runner starts a new wait (docs/provider.md, "Placement").
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseOwnerMark } from "../../sdk";

export interface CapacityDeadline {
  /** The deadline, ms on the service's clock. */
  until: number;
  /** Whether it continues an interrupted run's wait. */
  continued: boolean;
  /** The wait is over (placed, or failed): forget the deadline. */
  clear(): Promise<void>;
}

const waitsDir = () => join(process.env.PULUMI_HOME || join(homedir(), ".pulumi"), "compute", "capacity-waits");

/** The deadline of a wait of `timeoutSeconds` from `now` for the resource carrying `ownerMark`, or the one an interrupted run left. */
export async function capacityDeadline(ownerMark: unknown, timeoutSeconds: number, now: number): Promise<CapacityDeadline> {
  const key = typeof ownerMark === "string" ? parseOwnerMark(ownerMark)?.key : undefined;
  const fresh = now + timeoutSeconds * 1000;
  if (!key) return { until: fresh, continued: false, clear: async () => undefined };
  const file = join(waitsDir(), `${key}.json`);
  const clear = () => rm(file, { force: true });
  const left = await readFile(file, "utf8")
    .then((text) => JSON.parse(text) as { until?: unknown; timeoutSeconds?: unknown })
    .catch(() => undefined);
  if (left && typeof left.until === "number" && left.timeoutSeconds === timeoutSeconds && left.until > now) return { until: left.until, continued: true, clear };
  await mkdir(waitsDir(), { recursive: true });
  await writeFile(file, JSON.stringify({ until: fresh, timeoutSeconds }));
  return { until: fresh, continued: false, clear };
}
