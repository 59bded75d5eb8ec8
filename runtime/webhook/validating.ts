/**
 * Validating admission handlers: a function from the typed request to a verdict (allowed or denied,
 * with a message and warnings). The server turns the verdict into the `AdmissionResponse`.
 *
 * Expected flow:
 * ```ts
 * server.validating<SampleDB>('/validate-sampledb', async (req) => {
 *   const from = req.object?.spec.restoreFrom;
 *   if (from && !exists(from)) return denied(`spec.restoreFrom: SampleDB '${from}' does not exist in '${req.namespace}'`);
 *   return allowed();
 * });
 * ```
 *
 * Guarantees: a denial carries `status.code` 403 and `reason: Forbidden` unless given (what kubectl
 * shows is `admission webhook "<name>" denied the request: <message>`); a handler that throws
 * denies with code 500 and the error's message (controller-runtime's `Errored`), so a bug never admits.
 */
import type { KubeObject } from '../resource';
import type { AdmissionRequest, AdmissionResponse } from './admission-review';

/** What a validating handler decides. */
export interface AdmissionVerdict {
  readonly allowed: boolean;
  /** Shown to the user when denied. */
  readonly message?: string;
  /** @default - 403 when denied, 200 when allowed */
  readonly code?: number;
  /** @default - 'Forbidden' when denied */
  readonly reason?: string;
  /** Warnings returned to the client, admitted or not. */
  readonly warnings?: readonly string[];
  /** Added to the audit event of the request, keys prefixed by the apiserver with the webhook name. */
  readonly auditAnnotations?: Readonly<Record<string, string>>;
}

/** A validating handler for objects of type `T`. */
export type ValidatingHandler<T extends KubeObject = KubeObject> = (
  request: AdmissionRequest<T>,
) => AdmissionVerdict | Promise<AdmissionVerdict>;

/** Admits the request, optionally with warnings. */
export function allowed(warnings?: readonly string[]): AdmissionVerdict {
  return warnings?.length ? { allowed: true, warnings } : { allowed: true };
}

/** Denies the request with `message` (403 Forbidden unless `code`/`reason` say otherwise). */
export function denied(message: string, options: Omit<AdmissionVerdict, 'allowed' | 'message'> = {}): AdmissionVerdict {
  return { ...options, allowed: false, message };
}

/** The response for a verdict. @internal */
export function verdictResponse(uid: string, verdict: AdmissionVerdict): AdmissionResponse {
  const warnings = verdict.warnings?.length ? { warnings: [...verdict.warnings] } : {};
  const audit = verdict.auditAnnotations ? { auditAnnotations: verdict.auditAnnotations } : {};
  if (verdict.allowed) {
    return {
      uid,
      allowed: true,
      ...(verdict.message ? { status: { code: verdict.code ?? 200, message: verdict.message } } : {}),
      ...warnings,
      ...audit,
    };
  }
  const code = verdict.code ?? 403;
  return {
    uid,
    allowed: false,
    status: {
      status: 'Failure',
      code,
      reason: verdict.reason ?? (code === 403 ? 'Forbidden' : code === 400 ? 'BadRequest' : 'InternalError'),
      message: verdict.message ?? 'denied',
    },
    ...warnings,
    ...audit,
  };
}
