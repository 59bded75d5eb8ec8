/** metav1.Status bodies exactly as kube-apiserver v1.32 writes them (see fixtures). */

export interface StatusCause {
  readonly reason: string;
  readonly message: string;
  readonly field: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** A failed request: HTTP code + Status body (+ optional extra headers). */
export class ApiError extends Error {
  public readonly headers: Record<string, string> = {};
  constructor(public readonly code: number, public readonly reason: string, message: string, public readonly details?: StatusDetails,
    public readonly statusMetadata: Record<string, any> = {}) {
    super(message);
  }

  toStatus(): Record<string, any> {
    const body: Record<string, any> = { kind: 'Status', apiVersion: 'v1', metadata: this.statusMetadata, status: 'Failure', message: this.message, reason: this.reason };
    if (this.details) body.details = this.details;
    body.code = this.code;
    return body;
  }
}

/** Identifies a resource the way apiserver errors do: `plural.group` or just `plural` for the core group. */
export interface ResourceRef {
  readonly group: string;
  readonly plural: string;
  readonly kind: string;
}

function qualified(r: ResourceRef): string {
  return r.group ? `${r.plural}.${r.group}` : r.plural;
}

function details(r: ResourceRef, name: string | undefined, kind: string): StatusDetails {
  const d: StatusDetails = {};
  if (name !== undefined && name !== '') d.name = name;
  if (r.group) d.group = r.group;
  d.kind = kind;
  return d;
}

export function notFound(r: ResourceRef, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualified(r)} "${name}" not found`, details(r, name, r.plural));
}

export function alreadyExists(r: ResourceRef, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualified(r)} "${name}" already exists`, details(r, name, r.plural));
}

export function conflict(r: ResourceRef, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again'): ApiError {
  return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(r)} "${name}": ${why}`, details(r, name, r.plural));
}

export function invalid(r: ResourceRef, name: string, causes: StatusCause[]): ApiError {
  const kindGroup = r.group ? `${r.kind}.${r.group}` : r.kind;
  // utilerrors.Aggregate drops duplicate messages from the summary (the causes keep them).
  const parts = [...new Set(causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message)))];
  const summary = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${kindGroup} "${name}" is invalid: ${summary}`, { ...details(r, name, r.kind), causes });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function methodNotAllowed(): ApiError {
  return new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function unsupportedMediaType(accepted: string[]): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

export function expired(message: string, metadata: Record<string, any> = {}): ApiError {
  return new ApiError(410, 'Expired', message, undefined, metadata);
}

export function forbidden(r: ResourceRef, name: string, why: string): ApiError {
  const target = name ? `${qualified(r)} "${name}"` : qualified(r);
  return new ApiError(403, 'Forbidden', `${target} is forbidden: ${why}`, details(r, name, r.plural));
}

/** Status used by DELETE responses of built-in resources without finalizers. */
export function successStatus(r: ResourceRef, name: string, uid: string): Record<string, any> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { ...details(r, name, r.plural), uid } };
}

export function fieldInvalid(field: string, value: unknown, message: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${formatValue(value)}: ${message}`, field };
}

export function fieldRequired(field: string, detail = ''): StatusCause {
  return { reason: 'FieldValueRequired', message: detail ? `Required value: ${detail}` : 'Required value', field };
}

export function fieldNotSupported(field: string, value: unknown, supported: unknown[]): StatusCause {
  return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${formatValue(value)}: supported values: ${supported.map(formatValue).join(', ')}`, field };
}

export function fieldForbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

/** Formats a value the way field.Error does: strings quoted, objects by type name. */
export function formatValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return '"array"';
  if (typeof v === 'object') return '"object"';
  return String(v);
}

/** 409 of a server-side apply with conflicts, worded like structured-merge-diff. */
export function applyConflict(conflicts: Array<{ manager: string; apiVersion: string; path: string }>): ApiError {
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const k = `conflict with ${JSON.stringify(c.manager)} using ${c.apiVersion}`;
    byManager.set(k, [...(byManager.get(k) ?? []), c.path]);
  }
  const n = conflicts.length;
  let message: string;
  if (n === 1) message = `Apply failed with 1 conflict: ${[...byManager.keys()][0]}: ${conflicts[0].path}`;
  else {
    message = `Apply failed with ${n} conflicts: ${[...byManager.entries()].map(([k, paths]) => `${k.replace('conflict with', 'conflicts with')}:\n${paths.map((p) => `- ${p}`).join('\n')}`).join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, {
    causes: conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${JSON.stringify(c.manager)} using ${c.apiVersion}`, field: c.path })),
  });
}
