/** The part of autocannon (which ships no types) that scenario 6 uses. */
declare module "autocannon" {
  interface Histogram {
    average: number;
    total: number;
    p50: number;
    p99: number;
    max: number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    requests?: Array<{ method?: string; path?: string; setupRequest?: (request: Record<string, unknown>) => Record<string, unknown> }>;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export = autocannon;
}
