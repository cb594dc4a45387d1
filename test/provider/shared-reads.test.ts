/** Reads shared by the resources of one run: the owner-mark lookup and the catalog's prices. */
import { forSeconds, whileInFlight } from "../../provider/runtime/shared-reads";

function counter() {
  let calls = 0;
  let release: () => void = () => undefined;
  const read = () => {
    calls += 1;
    return new Promise<number>((resolve) => (release = () => resolve(calls)));
  };
  return { read, calls: () => calls, release: () => release() };
}

it("shares a lookup among the callers that ask while it is under way, and reads again after it ended", async () => {
  const owner = {};
  const lookup = counter();
  const first = whileInFlight(owner, "pods", lookup.read);
  const second = whileInFlight(owner, "pods", lookup.read);
  lookup.release();
  expect(await Promise.all([first, second])).toEqual([1, 1]);
  // A create that asks after the list answered must see the account as it is now.
  const third = whileInFlight(owner, "pods", lookup.read);
  lookup.release();
  expect(await third).toBe(2);
  expect(lookup.calls()).toBe(2);
});

it("keeps prices for the time given, per owner, and never keeps a failed read", async () => {
  const owner = {};
  const prices = counter();
  const first = forSeconds(owner, "gpus", 60, prices.read);
  prices.release();
  await first;
  expect(await forSeconds(owner, "gpus", 60, prices.read)).toBe(1);
  // Another client (another service or key) reads for itself.
  const other = forSeconds({}, "gpus", 60, prices.read);
  prices.release();
  expect(await other).toBe(2);

  let attempts = 0;
  const failing = () => {
    attempts += 1;
    return Promise.reject(new Error("catalog down"));
  };
  await expect(forSeconds(owner, "cpus", 60, failing)).rejects.toThrow("catalog down");
  await expect(forSeconds(owner, "cpus", 60, failing)).rejects.toThrow("catalog down");
  expect(attempts).toBe(2);
});
