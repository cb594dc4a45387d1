/**
 * Query-string reading with the same 422 discipline as bodies: every malformed parameter is
 * collected, then reported at once. Lists accept both `a=x,y` and repeated `a=x&a=y`.
 * Handlers read through `readQuery`, so none can forget to report what it collected.
 */
import { unprocessable } from "./http";

export class QueryReader {
  private readonly violations: string[] = [];

  constructor(private readonly query: URLSearchParams) {}

  has(name: string): boolean {
    return this.query.has(name);
  }

  string(name: string): string | undefined {
    return this.query.get(name) ?? undefined;
  }

  list(name: string): string[] {
    return this.query
      .getAll(name)
      .flatMap((value) => value.split(","))
      .map((value) => value.trim())
      .filter((value) => value !== "");
  }

  /** Repeated parameter kept whole (sandbox `labels=key=value` values may contain commas). */
  repeated(name: string): string[] {
    return this.query.getAll(name);
  }

  enumList<T extends string>(name: string, allowed: readonly T[]): T[] {
    const values = this.list(name);
    for (const value of values) {
      if (!allowed.includes(value as T)) this.fail(name, `must be one of ${allowed.join(", ")} (got "${value}")`);
    }
    return values.filter((v): v is T => allowed.includes(v as T));
  }

  enumValue<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!allowed.includes(value as T)) {
      this.fail(name, `must be one of ${allowed.join(", ")}`);
      return undefined;
    }
    return value as T;
  }

  boolean(name: string): boolean | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (value === "true") return true;
    if (value === "false") return false;
    this.fail(name, "must be true or false");
    return undefined;
  }

  integer(name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!/^-?\d+$/.test(value.trim())) {
      this.fail(name, "must be an integer");
      return undefined;
    }
    const n = Number(value);
    if (n < min) this.fail(name, `must be >= ${min}`);
    else if (n > max) this.fail(name, `must be <= ${max}`);
    else return n;
    return undefined;
  }

  fail(name: string, rule: string): void {
    this.violations.push(`${name}: ${rule}`);
  }

  /** Throws the collected 422, if any. */
  done(): void {
    if (this.violations.length > 0) throw unprocessable("The query string is not valid", this.violations);
  }
}

/**
 * Reads a query with `read`, then throws the 422 of every violation it collected (none: the
 * value `read` returned).
 */
export function readQuery<T>(query: URLSearchParams, read: (q: QueryReader) => T): T {
  const q = new QueryReader(query);
  const value = read(q);
  q.done();
  return value;
}
