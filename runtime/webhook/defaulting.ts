/**
 * Defaulting (mutating) admission handlers: the handler gets a private deep copy of the object and
 * returns the object as it should be admitted; the server computes the RFC 6902 JSON patch from the
 * original to the returned object (with `rfc6902`, not a hand-written diff) and sends it base64-encoded
 * with `patchType: JSONPatch`, as the apiserver requires.
 *
 * Expected flow:
 * ```ts
 * server.defaulting<SampleDB>('/default-sampledb', (db, req) => {
 *   db.spec.storage ??= { size: '10Gi' };
 *   return db;                       // or return nothing: the copy as modified is used
 * });
 * ```
 *
 * Guarantees: an unchanged object produces no patch (the response has no `patch`/`patchType`); a
 * handler may also deny (return {@link AdmissionVerdict} via `denied(...)`); a handler that throws
 * denies with code 500 (a bug never admits an object it was meant to complete).
 *
 * Caveats: only CREATE and UPDATE carry an object; for DELETE/CONNECT the handler is not called and
 * the request is admitted unchanged.
 */
import { createPatch } from 'rfc6902';
import type { KubeObject } from '../resource';
import type { AdmissionRequest, AdmissionResponse } from './admission-review';
import { AdmissionVerdict, verdictResponse } from './validating';

/** A defaulting handler: mutate or replace `object` (a deep copy) and return it, or deny. */
export type DefaultingHandler<T extends KubeObject = KubeObject> = (
  object: T,
  request: AdmissionRequest<T>,
) => T | void | AdmissionVerdict | Promise<T | void | AdmissionVerdict>;

function isVerdict(x: unknown): x is AdmissionVerdict {
  return (
    typeof x === 'object' && x !== null && typeof (x as AdmissionVerdict).allowed === 'boolean' && !('metadata' in x)
  );
}

/** Runs a defaulting handler and builds the patched response. @internal */
export async function runDefaulting<T extends KubeObject>(
  handler: DefaultingHandler<T>,
  request: AdmissionRequest<T>,
): Promise<AdmissionResponse> {
  const original = request.object;
  if (!original || (request.operation !== 'CREATE' && request.operation !== 'UPDATE')) {
    return { uid: request.uid, allowed: true };
  }
  // JSON round trip: a private deep copy without `undefined`s, so the diff sees exactly what the apiserver sent.
  const copy = JSON.parse(JSON.stringify(original)) as T;
  const result = await handler(copy, request);
  if (isVerdict(result)) {
    if (!result.allowed) return verdictResponse(request.uid, result);
    return patchResponse(request.uid, original, copy, result.warnings);
  }
  return patchResponse(request.uid, original, (result ?? copy) as T);
}

function patchResponse(
  uid: string,
  original: KubeObject,
  changed: KubeObject,
  warnings?: readonly string[],
): AdmissionResponse {
  const operations = createPatch(original, JSON.parse(JSON.stringify(changed)));
  const extra = warnings?.length ? { warnings: [...warnings] } : {};
  if (operations.length === 0) return { uid, allowed: true, ...extra };
  return {
    uid,
    allowed: true,
    patchType: 'JSONPatch',
    patch: Buffer.from(JSON.stringify(operations)).toString('base64'),
    ...extra,
  };
}
