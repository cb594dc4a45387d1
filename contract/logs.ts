/** Pod and sandbox log streams (v2 document, "Logs"): the event and the query's bounds. */
import { z } from "zod";
import { dateTime } from "./common";

/** `container`: the main process's output; `system`: lifecycle events of the service. */
export const LogSource = z.enum(["container", "system"]);
export type LogSource = z.infer<typeof LogSource>;

/** Lines of history a stream starts with when `tail` is not sent. */
export const DEFAULT_LOG_TAIL = 100;
/** The largest `tail` the service accepts (`0` asks for live lines only). */
export const MAX_LOG_TAIL = 5000;

/** One event of a pod or sandbox log stream (`data:` payload of the SSE frame). */
export const LogEvent = z.looseObject({
  source: LogSource,
  line: z.string(),
  ts: dateTime,
});
export type LogEvent = z.infer<typeof LogEvent>;
