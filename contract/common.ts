/** Shapes shared by several resource families of the v2 wire format. */
import { z } from "zod";

export const MAJOR_MINOR = /^\d+\.\d+$/;
export const PORT_PROTOCOL = /^([1-9]\d{0,4})\/(http|tcp)$/;

export const dateTime = z.string();
export const stringMap = z.record(z.string(), z.string());

/** `port/protocol`, for example `8888/http` or `22/tcp`; port 1..65535. */
export const portSpec = z.string().refine(
  (value) => {
    const match = PORT_PROTOCOL.exec(value);
    return match !== null && Number(match[1]) <= 65535;
  },
  { message: 'must be "<port>/<protocol>" with port 1-65535 and protocol http or tcp' },
);

export const majorMinor = z.string().regex(MAJOR_MINOR, { message: 'must be a "major.minor" version such as 12.4' });

/** 1, 2, 4, 8, …: the rule of a CPU pod's `vcpuCount` and of the CPU catalog's `vcpuCount` filter. */
export function isPowerOfTwo(n: number): boolean {
  return Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;
}

/** application/problem+json, with the 409 extension member `code` and rate-limit `retryAfter`. */
export const Problem = z.looseObject({
  title: z.string(),
  status: z.int(),
  detail: z.string(),
  errors: z.array(z.string()).optional(),
  code: z.string().optional(),
});
export type Problem = z.infer<typeof Problem>;

export const AvailabilityLevel = z.enum(["NONE", "LOW", "MEDIUM", "HIGH"]);
export type AvailabilityLevel = z.infer<typeof AvailabilityLevel>;

export const Cloud = z.enum(["SECURE", "COMMUNITY"]);
export type Cloud = z.infer<typeof Cloud>;
