/**
 * A capacity wait's deadline, kept across an interrupted `up`: a create that has begun waiting
 * for capacity (provider/resources/placement.ts `waitForCapacity`) writes its deadline to a small
 * file under the Pulumi home, named by the resource's owner mark (stack and resource, this
 * generation), so the next `up` of that stack resource on the same machine continues the wait
 * instead of starting a new one. The file is written only once a wait begins (the first round
 * found no room), and goes when the create ends, whatever the outcome, or when the next `up`
 * adopts what an interrupted one made. A deadline already past when the next `up` starts belongs
 * to a wait that is over: a new one starts. Without an owner mark nothing is kept.
 *
 * The engine keeps nothing of a create that was killed before it answered, and the service holds
 * nothing of a wait (nothing exists yet), so the machine's own disk is where this can live; a CI
 * job on another runner starts a new wait (docs/provider.md, "Placement"). The file is a
 * convenience: a Pulumi home that cannot be written or read never fails a create.
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
  /** A wait begins: keep the deadline for a run that follows an interruption. */
  persist(): Promise<void>;
  /** The wait is over (placed, or failed): forget the deadline. */
  clear(): Promise<void>;
}

const waitsDir = () => join(process.env.PULUMI_HOME || join(homedir(), ".pulumi"), "compute", "capacity-waits");
const fileOf = (mark: unknown) => {
  const key = typeof mark === "string" ? parseOwnerMark(mark)?.key : undefined;
  return key ? join(waitsDir(), `${key}.json`) : undefined;
};
const quietly = (work: Promise<unknown>) => work.then(() => undefined, () => undefined);

/** The deadline of a wait of `timeoutSeconds` from `now` for the resource carrying `ownerMark`, or the one an interrupted run left. */
export async function capacityDeadline(ownerMark: unknown, timeoutSeconds: number, now: number): Promise<CapacityDeadline> {
  const file = fileOf(ownerMark);
  const fresh = now + timeoutSeconds * 1000;
  if (!file) return { until: fresh, continued: false, persist: async () => undefined, clear: async () => undefined };
  const left = await readFile(file, "utf8")
    .then((text) => JSON.parse(text) as { until?: unknown; timeoutSeconds?: unknown })
    .catch(() => undefined);
  const continued = left !== undefined && typeof left.until === "number" && left.timeoutSeconds === timeoutSeconds && left.until > now;
  const until = continued ? (left.until as number) : fresh;
  return {
    until,
    continued,
    persist: () => quietly(mkdir(waitsDir(), { recursive: true }).then(() => writeFile(file, JSON.stringify({ until, timeoutSeconds })))),
    clear: () => quietly(rm(file, { force: true })),
  };
}

/** What an interrupted run made was adopted: its wait, if it left one, is over. */
export function forgetCapacityDeadline(ownerMark: unknown): Promise<void> {
  const file = fileOf(ownerMark);
  return file ? quietly(rm(file, { force: true })) : Promise.resolve();
}
