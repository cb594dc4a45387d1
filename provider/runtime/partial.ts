/**
 * A create or update that failed after the resource came to exist. The dynamic-provider host
 * turns an error carrying `id`, `properties` and `reasons` into a partial failure: the engine
 * records the resource (so it is never leaked) and the next `up` calls `update` on it.
 * The host does not add `__provider` to those properties, so they include it.
 */
export class PartialFailure extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: string[],
  ) {
    super(message);
    this.name = "PartialFailure";
  }
}

/** Plain JSON: `undefined`, Dates and class instances do not survive the host's struct encoding. */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * The service created a resource but its answer (and a read of it) could not be understood:
 * record it by id with the desired inputs, so it is never left outside the stack; the next
 * `up` reads it again and goes on from there.
 */
export function unreadableCreate(inputs: object, idField: string, id: string, providerText: unknown, error: Error): PartialFailure {
  const message = `${error.message}\nIt is recorded in the stack by its id; the next \`pulumi up\` reads it again.`;
  return new PartialFailure(message, id, plain({ ...inputs, [idField]: id, __provider: providerText }), [message]);
}
