/** Reads shared by the resources of one run: the owner-mark lookup and the catalog's prices. */
import { forRun, forSeconds, startNewRun } from "../../provider/runtime/shared-reads";

function counter() {
  let calls = 0;
  let release: () => void = () => undefined;
  const read = () => {
    calls += 1;
    return new Promise<number>((resolve) => (release = () => resolve(calls)));
  };
  return { read, calls: () => calls, release: () => release() };
}

it("keeps the left-behind lookup for the rest of the run, shared by every caller, until a new run", async () => {
  startNewRun();
  const owner = {};
  const lookup = counter();
  const first = forRun(owner, "pods", lookup.read);
  const second = forRun(owner, "pods", lookup.read);
  lookup.release();
  expect(await Promise.all([first, second])).toEqual([1, 1]);
  // A create that asks after the list answered: what earlier runs left is all in it already.
  expect(await forRun(owner, "pods", lookup.read)).toBe(1);
  expect(lookup.calls()).toBe(1);
  // The next run (a new process in real life) reads again.
  startNewRun();
  const next = forRun(owner, "pods", lookup.read);
  lookup.release();
  expect(await next).toBe(2);
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
