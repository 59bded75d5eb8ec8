/**
 * Typed errors of the controller runtime.
 *
 * - {@link ApiError}: a non-2xx answer of the kube-apiserver, with the decoded `Status` (`reason`, `code`).
 * - {@link TerminalError}: thrown by a reconciler for a failure that retrying cannot fix; the controller
 *   counts it and does not requeue.
 * - {@link AlreadyOwnedError}: an object already has another controller.
 *
 * Messages name the request (`PATCH /apis/...`) or the object (`namespace/name`).
 *
 * Guarantees: the `is…` helpers (`isNotFound`, `isConflict`, …) accept any thrown value and never throw;
 * {@link fromApiException} converts client-node's `ApiException` and passes every other error through unchanged.
 */

/** The `metav1.Status` body the apiserver returns with errors. */
export interface KubeStatus {
  readonly kind?: 'Status';
  readonly apiVersion?: string;
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly code?: number;
  readonly details?: {
    readonly name?: string;
    readonly kind?: string;
    readonly retryAfterSeconds?: number;
    readonly causes?: ReadonlyArray<{ readonly reason?: string; readonly message?: string; readonly field?: string }>;
  };
}

/** A non-2xx response (or a watch ERROR event) from the kube-apiserver. */
export class ApiError extends Error {
  /** HTTP status code (or the Status code of a watch ERROR event). */
  public readonly code: number;
  /** `Status.reason`, e.g. `NotFound`, `Conflict`, `AlreadyExists`, `Expired`, `Gone`. */
  public readonly reason: string | undefined;
  /** The decoded `Status` body, when there was one. */
  public readonly status: KubeStatus | undefined;
  /** Seconds from the `Retry-After` header or `Status.details.retryAfterSeconds`. */
  public readonly retryAfterSeconds: number | undefined;

  constructor(
    code: number,
    public readonly method: string,
    public readonly path: string,
    status?: KubeStatus,
    retryAfterSeconds?: number,
  ) {
    super(`${method} ${path}: ${code} ${status?.reason ?? ''} ${status?.message ?? ''}`.trim());
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.reason = status?.reason;
    this.retryAfterSeconds = retryAfterSeconds ?? status?.details?.retryAfterSeconds;
  }
}

/** Thrown by a reconciler when retrying cannot help (bad spec, permanent misconfiguration). Not requeued. */
export class TerminalError extends Error {
  constructor(
    message: string,
    public readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'TerminalError';
  }
}

/** The object already has a different controller owner reference. */
export class AlreadyOwnedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AlreadyOwnedError';
  }
}

/** The cache did not sync or a wait expired. */
export class TimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}

function codeOf(err: unknown): number | undefined {
  return err instanceof ApiError ? err.code : undefined;
}

/** 404 NotFound. */
export function isNotFound(err: unknown): boolean {
  return codeOf(err) === 404;
}
/** 403: RBAC (or an admission plugin) refused the request. */
export function isForbidden(err: unknown): boolean {
  return codeOf(err) === 403;
}
/** 409 Conflict on a stale resourceVersion (not AlreadyExists). */
export function isConflict(err: unknown): boolean {
  return codeOf(err) === 409 && (err as ApiError).reason !== 'AlreadyExists';
}
/** 409 AlreadyExists. */
export function isAlreadyExists(err: unknown): boolean {
  return codeOf(err) === 409 && (err as ApiError).reason === 'AlreadyExists';
}
/** 410 Gone / Expired: the resourceVersion is too old, re-list. */
export function isGone(err: unknown): boolean {
  return codeOf(err) === 410;
}
/** 422 Invalid. */
export function isInvalid(err: unknown): boolean {
  return codeOf(err) === 422;
}
/** 429 TooManyRequests. */
export function isTooManyRequests(err: unknown): boolean {
  return codeOf(err) === 429;
}

/**
 * Converts client-node's `ApiException {code, body, headers}` (thrown by its generated APIs and
 * `KubernetesObjectApi`) into an {@link ApiError}; other values are returned unchanged.
 */
export function fromApiException(err: unknown, method = 'UNKNOWN', path = ''): unknown {
  if (err instanceof ApiError || typeof err !== 'object' || err === null) return err;
  const e = err as { code?: unknown; body?: unknown; headers?: Record<string, string> };
  if (typeof e.code !== 'number' || !('body' in e)) return err;
  let status: KubeStatus | undefined;
  if (typeof e.body === 'string') {
    try {
      status = JSON.parse(e.body) as KubeStatus;
    } catch {
      status = { message: e.body };
    }
  } else if (e.body && typeof e.body === 'object') {
    status = e.body as KubeStatus;
  }
  const retryAfter = e.headers?.['retry-after'] ?? e.headers?.['Retry-After'];
  return new ApiError(
    e.code,
    method,
    path,
    status,
    retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined,
  );
}
