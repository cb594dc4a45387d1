/**
 * Reading the emulator's request log in tests: a fault is seen to fire (its status, or `null`
 * where it dropped the connection) before a test asserts what the product did about it.
 */
import type { LoggedRequest } from "../../emulator";

/** The statuses the service answered `method path` with, in order (`null`: the connection was dropped). */
export function answersTo(requests: ReadonlyArray<Pick<LoggedRequest, "method" | "path" | "status">>, method: string, path: string): Array<number | null> {
  return requests.filter((request) => request.method === method && request.path === path).map((request) => request.status);
}
