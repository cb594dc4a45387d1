/**
 * The dynamic-provider host prints every error a provider method throws to stderr, with its
 * stack (`console.error(`${e}: ${e.stack}`)` in @pulumi/pulumi/cmd/dynamic-provider), beside the
 * error it reports: for the failures the product expects, that second, traced copy is dropped
 * (provider/runtime/errors.ts), also when a secret was redacted from the message. A file of its
 * own: the filter wraps the console.error it finds the first time, here a mock.
 */
const printed = jest.fn();
console.error = printed;

import { ComputeError } from "../../sdk";
import { userFacing, withoutHostPrint } from "../../provider/runtime/errors";
import { learnSecrets, redactError } from "../../provider/runtime/secrets";

/** An error as it leaves a provider method (runtime/index.ts `guarded`). */
const leaving = (error: unknown) => withoutHostPrint(redactError(userFacing(error, "sandbox", "scratch", "read"))) as Error;

it("drops the host's copy of an expected error, secret redacted, and prints everything else", () => {
  learnSecrets({ secretInputs: ["sandboxId"], sandboxId: "sb-secret-id-123" });
  const error = leaving(new ComputeError("GET /v2/sandboxes/sb-secret-id-123: something went wrong"));
  expect(error.message).toBe("sandbox scratch: read failed: GET /v2/sandboxes/[secret]: something went wrong");
  console.error(`${error}: ${error.stack}`);
  console.error("an unrelated line");
  expect(printed.mock.calls).toEqual([["an unrelated line"]]);
});

it("lets the host print a bug of the product with its stack", () => {
  printed.mockClear();
  const bug = leaving(new TypeError("cannot read properties of undefined"));
  console.error(`${bug}: ${bug.stack}`);
  expect(printed).toHaveBeenCalledTimes(1);
  expect(String(printed.mock.calls[0]![0])).toMatch(/\n\s+at /);
});
