/**
 * The monthly budget's actual (policy/month.ts): the service's billing this month for the ids the
 * stack's resources carry, read from the emulator on a frozen clock and compared with its own
 * billing answer; resources without an id yet (to be created) bill nothing.
 */
import { ComputeClient, POD_OWNER_ENV } from "../../sdk";
import { ownerMark } from "../../sdk/ownership";
import { billedIds, monthOf, monthToDate } from "../../policy/month";
import { freshFixture, gpuPod, useEmulator } from "../emulator/harness";

const T0 = "2030-05-10T00:00:00Z";
const h = useEmulator({ freezeClock: T0 }, freshFixture(T0));

/** The owner mark the provider gives resource `name` of stack `project/stack`. */
const mark = (project: string, stack: string, name: string) =>
  ownerMark({ organization: "organization", project, stack, backend: "file:///state", urn: `urn:pulumi:${stack}::${project}::compute:index:Pod::${name}`, salt: "salt" });

test("the month-to-date actual is the service's billing this month for the stack's ids, and the month's hours left", async () => {
  const pod = (await h.post("/v2/pods", gpuPod())).body;
  const other = (await h.post("/v2/pods", gpuPod({ name: "not-in-stack" }))).body;
  // Being replaced by the change: the preview names no id for it, its owner mark does.
  const changing = (await h.post("/v2/pods", gpuPod({ name: "changing", env: { [POD_OWNER_ENV]: mark("p", "dev", "changing") } }))).body;
  const otherStack = (await h.post("/v2/pods", gpuPod({ name: "theirs", env: { [POD_OWNER_ENV]: mark("p", "prod", "theirs") } }))).body;
  await h.control.advance(48 * 3_600_000);
  const now = Date.parse(T0) + 48 * 3_600_000;
  const resources = [
    { type: "compute:index:Pod", name: "web", urn: "urn:pulumi:dev::p::compute:index:Pod::web", props: { podId: pod.id } },
    { type: "pulumi-nodejs:dynamic/compute:Pod", name: "changing", urn: "urn:pulumi:dev::p::pulumi-nodejs:dynamic/compute:Pod::changing", props: {} },
    { type: "aws:s3/bucket:Bucket", name: "logs", urn: "urn:pulumi:dev::p::aws:s3/bucket:Bucket::logs", props: { id: other.id } },
  ];
  expect(billedIds(resources)).toEqual([{ id: pod.id, urn: resources[0]!.urn, route: "pods" }]);
  const client = new ComputeClient({ baseUrl: h.url, apiKey: h.apiKey, env: {} });
  try {
    const mtd = await monthToDate(resources, client, now);
    let truth = 0;
    for (const id of [pod.id, changing.id]) {
      truth += (await h.get(`/v2/billing/pods?podId=${id}&startTime=2030-05-01T00:00:00Z&endTime=${new Date(now).toISOString()}`)).body.metadata.totals.totalAmount;
    }
    expect(mtd.actual).toBeCloseTo(truth, 6);
    expect(mtd.actual).toBeCloseTo((pod.cost + changing.cost) * 48, 4);
    expect(mtd).toMatchObject({ start: Date.UTC(2030, 4, 1), end: Date.UTC(2030, 5, 1) });
    expect([...mtd.ids].sort()).toEqual([pod.id, changing.id].sort());
    expect(mtd.ids).not.toContain(otherStack.id);
    expect(mtd.remainingHours).toBe((Date.UTC(2030, 5, 1) - now) / 3_600_000);
  } finally {
    await client.close();
  }
  expect(monthOf(Date.UTC(2030, 11, 31, 23))).toEqual({ start: Date.UTC(2030, 11, 1), end: Date.UTC(2031, 0, 1), remainingHours: 1 });
});
