/**
 * The SDK's one error tree. Every failure a caller can see is a `ComputeError`; HTTP failures
 * are mapped from status to a class in exactly one place (`errorFromResponse`).
 *
 * `instanceof` works across two copies of this package: a Pulumi program and the dynamic
 * provider's process may load different copies, so each class is recognised by a brand
 * registered with `Symbol.for`, not by prototype identity (the technique undici uses).
 */
import type { Problem } from "../contract";

const BRANDS = Symbol.for("pulumi-compute.error.brands");

function brandsOf(ctor: unknown): string[] {
  const out: string[] = [];
  let current: unknown = ctor;
  while (typeof current === "function") {
    const brand = (current as { brand?: unknown }).brand;
    if (Object.prototype.hasOwnProperty.call(current, "brand") && typeof brand === "string") out.push(brand);
    current = Object.getPrototypeOf(current);
  }
  return out;
}

/**
 * `base` under a brand of its own: each class below `ComputeError` here is declared
 * `class X extends branded(Base, "X") {...}` (the brand is what `instanceof` checks).
 */
function branded<C extends new (...args: any[]) => ComputeError>(base: C, brand: string): C {
  return class extends base {
    static readonly brand: string = brand;
  };
}

/** A list as the messages show one: a line per item, indented and dashed. */
export const bulleted = (items: string[]) => items.map((item) => `  - ${item}`).join("\n");

export interface RequestInfo {
  method: string;
  path: string;
}

export class ComputeError extends Error {
  static readonly brand: string = "ComputeError";

  static override [Symbol.hasInstance](value: unknown): boolean {
    const brands = (value as { [BRANDS]?: unknown } | null | undefined)?.[BRANDS];
    return Array.isArray(brands) && brands.includes((this as unknown as { brand: string }).brand);
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    Object.defineProperty(this, BRANDS, { value: brandsOf(new.target), enumerable: false });
  }
}

/** Missing or malformed client configuration, found before any request is sent. */
export class ConfigurationError extends branded(ComputeError, "ConfigurationError") {}

/** A request the SDK refused to send: every violation, each naming its field and rule. */
export class ValidationError extends branded(ComputeError, "ValidationError") {
  constructor(
    readonly what: string,
    readonly violations: string[],
  ) {
    super(`${what} is invalid:\n${bulleted(violations)}`);
  }
}

/** The service answered with a body that does not match the contract. */
export class ResponseValidationError extends branded(ComputeError, "ResponseValidationError") {
  constructor(
    readonly request: RequestInfo,
    readonly violations: string[],
  ) {
    super(`${request.method} ${request.path}: unexpected response shape:\n${bulleted(violations)}`);
  }
}

/**
 * A create the service accepted (2xx) whose answer could not be read, nor the resource read
 * back by the id the answer carried. The resource exists and is billed: callers must record
 * `resourceId` (a partial failure), never create it again.
 */
export class CreatedButUnreadableError extends branded(ResponseValidationError, "CreatedButUnreadableError") {
  constructor(
    request: RequestInfo,
    readonly resourceId: string,
    violations: string[],
    options?: { cause?: unknown },
  ) {
    super(request, violations);
    if (options?.cause !== undefined) Object.defineProperty(this, "cause", { value: options.cause, enumerable: false, writable: true, configurable: true });
    this.message =
      `${request.method} ${request.path} created ${resourceId}, but neither the answer nor a read of ${resourceId} could be read:\n` +
      bulleted(violations);
  }
}

export interface ApiErrorFields {
  status: number;
  title: string;
  detail: string;
  errors?: string[];
  code?: string;
  request: RequestInfo;
  retryAfterSeconds?: number;
  /** The service's id of this answer (`X-Request-Id`), when it sends one. */
  requestId?: string;
}

/** An HTTP error response (application/problem+json). */
export class ApiError extends branded(ComputeError, "ApiError") {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly errors: string[];
  readonly code?: string;
  readonly request: RequestInfo;
  readonly requestId?: string;

  constructor(fields: ApiErrorFields) {
    const list = fields.errors?.length ? `\n${bulleted(fields.errors)}` : "";
    super(`${fields.request.method} ${fields.request.path} failed with ${fields.status} ${fields.title}: ${fields.detail}${list}`);
    this.status = fields.status;
    this.title = fields.title;
    this.detail = fields.detail;
    this.errors = fields.errors ?? [];
    this.code = fields.code;
    this.request = fields.request;
    this.requestId = fields.requestId;
  }
}

/** The failure of an API call, as one line: request, status, detail, violations, request id. */
export function apiFailureLine(error: ApiError): string {
  const violations = error.errors.length > 0 ? ` (${error.errors.join("; ")})` : "";
  const requestId = error.requestId ? ` [request ${error.requestId}]` : "";
  return `${error.request.method} ${error.request.path} answered ${error.status} ${error.title}: ${error.detail}${violations}${requestId}`;
}

export class BadRequestError extends branded(ApiError, "BadRequestError") {}
export class AuthenticationError extends branded(ApiError, "AuthenticationError") {}
export class PaymentRequiredError extends branded(ApiError, "PaymentRequiredError") {}
export class PermissionDeniedError extends branded(ApiError, "PermissionDeniedError") {}
export class NotFoundError extends branded(ApiError, "NotFoundError") {}
/** 409; `code` carries the contract's machine-readable reason when the service sends one. */
export class ConflictError extends branded(ApiError, "ConflictError") {}
export class PayloadTooLargeError extends branded(ApiError, "PayloadTooLargeError") {}
/** 422; `errors` lists every violation the service found. */
export class UnprocessableEntityError extends branded(ApiError, "UnprocessableEntityError") {}
export class RateLimitError extends branded(ApiError, "RateLimitError") {
  /** Seconds the service asked to wait (`Retry-After`), when it said. */
  readonly retryAfterSeconds?: number;
  constructor(fields: ApiErrorFields) {
    super(fields);
    this.retryAfterSeconds = fields.retryAfterSeconds;
  }
}
export class ServerError extends branded(ApiError, "ServerError") {}

/** The connection failed or was dropped before a response arrived. */
export class ConnectionError extends branded(ComputeError, "ConnectionError") {
  constructor(
    readonly request: RequestInfo,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${request.method} ${request.path}: ${message}`, options);
  }
}

/** No response (or no complete body) within the configured timeout. */
export class TimeoutError extends branded(ConnectionError, "TimeoutError") {}

type ApiErrorClass = new (fields: ApiErrorFields) => ApiError;

const BY_STATUS: Record<number, ApiErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PaymentRequiredError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** The one place where a status becomes an error class. */
export function errorFromResponse(
  status: number,
  problem: Partial<Problem> | undefined,
  request: RequestInfo,
  retryAfterSeconds?: number,
  requestId?: string,
): ApiError {
  const ErrorClass = BY_STATUS[status] ?? (status >= 500 ? ServerError : ApiError);
  return new ErrorClass({
    status,
    title: problem?.title ?? `HTTP ${status}`,
    detail: problem?.detail ?? "(no detail in the response)",
    errors: Array.isArray(problem?.errors) ? problem.errors.filter((e): e is string => typeof e === "string") : undefined,
    code: typeof problem?.code === "string" ? problem.code : undefined,
    request,
    retryAfterSeconds,
    requestId,
  });
}

/** True for failures where the request may not have reached the service, or may succeed later. */
export function isTransient(error: unknown): boolean {
  return error instanceof ServerError || error instanceof ConnectionError;
}
