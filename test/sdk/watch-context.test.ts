/**
 * The shared poll answers every waiter from one loop, started in the first waiter's async
 * context. Each waiter's updates must still run in its own caller's context: the native plugin
 * attributes a progress line to the resource of the request in whose context it is written.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { Watcher } from "../../sdk/watch";

it("runs each waiter's updates in the async context of the code that waits", async () => {
  const resource = new AsyncLocalStorage<string>();
  let tick = 0;
  const watcher = new Watcher<{ id: string; status: string }>(
    {
      getOne: async (id) => ({ id, status: "RUNNING" }),
      listAll: async () => {
        tick += 1;
        const status = tick >= 2 ? "RUNNING" : "PROVISIONING";
        return [{ id: "a", status }, { id: "b", status }];
      },
    },
    { initialIntervalMs: 5, maxIntervalMs: 5 },
  );
  const seen: string[] = [];
  const wait = (id: string) =>
    resource.run(`urn-of-${id}`, () =>
      watcher.waitFor(id, (pod) => pod.status === "RUNNING", { onUpdate: (pod) => seen.push(`${pod.id} in ${resource.getStore()}`) }),
    );
  await Promise.all([wait("a"), wait("b")]);
  expect(seen.length).toBeGreaterThanOrEqual(2);
  expect(seen.every((line) => line === "a in urn-of-a" || line === "b in urn-of-b")).toBe(true);
  expect(new Set(seen)).toEqual(new Set(["a in urn-of-a", "b in urn-of-b"]));
});
