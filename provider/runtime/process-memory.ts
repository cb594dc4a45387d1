/**
 * What the provider remembers for the life of its process, in one place: the one store on
 * `globalThis` (under a `Symbol.for` key) in provider/.
 *
 * Why process-wide rather than module state: one process can hold more than one copy of these
 * modules, and every copy must see what the run learned. The dynamic-provider host loads the
 * runtime through each serialized provider (by package name), while a program, the native
 * plugin's entry or a test may have loaded it by path; jest gives each suite file its own
 * module registry. A resource's check and its replacement's check, a template's diff and its
 * dependents' diffs, a key's validation and every later call can each run through a different
 * copy. Each slot says what it holds where it is used.
 */
const MEMORY = Symbol.for("pulumi-compute.provider.memory");

type Holder = { [MEMORY]?: Map<string, unknown> };

/** The process's value for `name`, made by `create` the first time any copy asks. */
export function processSlot<T>(name: string, create: () => T): T {
  const slots = ((globalThis as Holder)[MEMORY] ??= new Map<string, unknown>());
  if (!slots.has(name)) slots.set(name, create());
  return slots.get(name) as T;
}
