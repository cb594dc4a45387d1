/**
 * Fault rules of the control plane: make matching API requests fail, slow down or lose their
 * connection, so clients' retry and duplicate-safety logic can be tested.
 *
 * A rule matches by method (optional) and path (exact, or a glob where `*` matches any
 * characters, `/` included). It applies to its next `times` matches (default: every match),
 * each with `probability` (default 1). Without `after`, the request is NOT executed; with
 * `after: true` it is executed (and persisted) and then its response is replaced or dropped.
 */
import { z } from "zod";

export const FaultInput = z.strictObject({
  method: z.string().optional(),
  path: z.string().min(1),
  status: z.int().min(100).max(599).optional(),
  retryAfter: z.int().min(0).optional(),
  latencyMs: z.int().min(0).optional(),
  drop: z.boolean().optional(),
  times: z.int().min(1).optional(),
  probability: z.number().min(0).max(1).optional(),
  body: z.unknown().optional(),
  after: z.boolean().optional(),
});
export type FaultInput = z.infer<typeof FaultInput>;

export interface FaultRule extends FaultInput {
  id: string;
  matched: number;
}

function globToRegExp(glob: string): RegExp {
  const source = glob.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  return new RegExp(`^${source}$`);
}

export class Faults {
  private rules: Array<FaultRule & { pattern: RegExp }> = [];
  private nextId = 1;

  add(input: FaultInput): FaultRule {
    const rule = { ...input, id: `fault-${this.nextId++}`, matched: 0, pattern: globToRegExp(input.path) };
    this.rules.push(rule);
    return this.describe(rule);
  }

  clear(): void {
    this.rules = [];
  }

  list(): FaultRule[] {
    return this.rules.map((r) => this.describe(r));
  }

  /** The first rule that fires for this request, consuming one of its `times`. */
  match(method: string, path: string): FaultRule | undefined {
    for (const rule of this.rules) {
      if (rule.method && rule.method.toUpperCase() !== method) continue;
      if (!rule.pattern.test(path)) continue;
      if (rule.probability !== undefined && Math.random() >= rule.probability) continue;
      rule.matched++;
      if (rule.times !== undefined && rule.matched >= rule.times) this.rules = this.rules.filter((r) => r !== rule);
      return this.describe(rule);
    }
    return undefined;
  }

  private describe(rule: FaultRule & { pattern?: RegExp }): FaultRule {
    const { pattern: _pattern, ...out } = rule;
    return out;
  }
}
