/**
 * Answer shapes. `seed` answers exactly as our reading of the API (the seed document and the
 * contract decisions) describes; `public` answers as the service's public OpenAPI describes it,
 * with the liberties a real service takes (members omitted or null, unknown members, coarse log
 * ids), so that clients are tested against more than our own reading. Requests are the same in
 * both: only answers change. Field by field: docs/emulator.md, "Answer shapes".
 */
import { isoMicros } from "../time";
import { publicView } from "./public-views";

export const SHAPES = ["seed", "public"] as const;
export type Shape = (typeof SHAPES)[number];

export const SHAPE_ENV = "COMPUTE_EMULATOR_SHAPE";

export function parseShape(value: string, where: string): Shape {
  if ((SHAPES as readonly string[]).includes(value)) return value as Shape;
  throw new Error(`${where} must be ${SHAPES.join(" or ")}, got "${value}"`);
}

/** The shape when none is given: the environment (so a whole test run can flip it), else `seed`. */
export function defaultShape(env: NodeJS.ProcessEnv = process.env): Shape {
  const value = env[SHAPE_ENV];
  return value === undefined || value === "" ? "seed" : parseShape(value, SHAPE_ENV);
}

/** What a shape changes, as the two places that answer (the gateway and the log streams) need it. */
export interface ShapeProfile {
  readonly name: Shape;
  /** Rewrites the body of a successful JSON answer of the route `"<METHOD> <route path>"`. */
  view(routeKey: string, body: unknown): unknown;
  podLogs: {
    /** The SSE `id:` of a pod log line at `us` microseconds. */
    eventId(us: number): string;
    /** A `Last-Event-ID` naming `us`: the stream continues with events after this instant. */
    resumeAfterUs(us: number): number;
    /** No container to stream: 409 with a code (seed), or a 200 stream that sends the history and ends (public). */
    whenUnavailable: "conflict" | "end";
  };
}

const seed: ShapeProfile = {
  name: "seed",
  view: (_route, body) => body,
  podLogs: { eventId: isoMicros, resumeAfterUs: (us) => us, whenUnavailable: "conflict" },
};

const publicShape: ShapeProfile = {
  name: "public",
  view: publicView,
  podLogs: {
    eventId: (us) => new Date(Math.floor(us / 1_000_000) * 1000).toISOString().replace(/\.000Z$/, "Z"),
    // A whole-second id cannot say which lines of its second were sent: resend the whole second
    // ("the stream resumes from this point", reference OpenAPI); clients drop what they had.
    resumeAfterUs: (us) => us - 1,
    whenUnavailable: "end",
  },
};

export function profileOf(shape: Shape): ShapeProfile {
  return shape === "public" ? publicShape : seed;
}
