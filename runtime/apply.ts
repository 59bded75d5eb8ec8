/**
 * Server-side apply of owned objects that skips writes in steady state.
 *
 * Expected flow: the reconciler builds the desired object (with a controller ownerReference, see
 * owner-references.ts), looks up the live object in the informer cache and calls {@link applyOwned}.
 *
 * Guarantees:
 * - No request when the live object already has every desired field with the desired value and
 *   carries the hash of the desired object in the annotation {@link APPLIED_HASH_ANNOTATION}
 *   (so removing a field from the desired object still triggers an apply).
 * - Otherwise one `PATCH application/apply-patch+yaml?fieldManager=…&force=true`, which creates
 *   the object if missing.
 * - With `createWhenAbsent` (the caller's cache watches this kind, so no live object means none
 *   exists), a missing object is created with a plain `POST` instead: for the apiserver a create
 *   costs a fraction of an apply (no apply-patch decoding, no managedFields merge), and creating is
 *   what most reconciles of a new owner do. A 409 AlreadyExists (the cache lagged) falls back to
 *   the apply.
 *
 * Caveats: the check trusts the cache; right after our own write the cache may lag and a second
 * (idempotent) apply can happen. Server defaults are fine (live may have more fields), but a
 * desired list must have the same length as the live one.
 */
import { hashJson, isSubset } from './_json';
import { KubeClient } from './client';
import { isAlreadyExists } from './errors';
import { KubeObject } from './resource';
import { TypedResourceRef } from './store';

/** Annotation holding the hash of the last applied desired object. */
export const APPLIED_HASH_ANNOTATION = 'cdk8s-operator.io/applied-hash';

/** Options of {@link applyOwned}; `T` is the object type `resource` carries. */
export interface ApplyOptions<T extends KubeObject = KubeObject> {
  /** Field manager (usually the controller name). */
  readonly fieldManager: string;
  /** The live object from the cache, if any. */
  readonly live?: KubeObject;
  /**
   * The resource (give `plural` for custom resources). A typed one (`DEPLOYMENT`, `resourceRef<Foo>(…)`)
   * type-checks `desired` against its object type.
   * @default - apiVersion and kind of `desired`
   */
  readonly resource?: TypedResourceRef<T>;
  /** Take ownership of fields other managers set. @default true */
  readonly force?: boolean;
  /**
   * `live` comes from an informer cache of this kind: when it is absent, create the object with a
   * `POST` (see module docs) rather than apply it. Leave off where the kind is not cached.
   * @default false
   */
  readonly createWhenAbsent?: boolean;
}

/** Result of {@link applyOwned}; `T` is the object type of the options' `resource`. */
export interface ApplyResult<T extends KubeObject = KubeObject> {
  /** The object after the apply (the apiserver's answer), or the live object when nothing was written. */
  readonly object: T;
  /** True if a request was sent. */
  readonly changed: boolean;
}

/** True if `live` already has everything `desired` asks for (see module docs). */
export function isApplied(desired: KubeObject, live: KubeObject | undefined): boolean {
  if (!live) return false;
  const { apiVersion: _a, kind: _k, ...fields } = withHash(desired);
  return isSubset(fields, live);
}

function withHash(desired: KubeObject): KubeObject {
  const hash = hashJson(desired);
  const meta = desired.metadata ?? {};
  return {
    ...desired,
    metadata: { ...meta, annotations: { ...(meta.annotations ?? {}), [APPLIED_HASH_ANNOTATION]: hash } },
  };
}

/**
 * Applies `desired` with server-side apply unless the live object already matches. With a typed
 * `options.resource`, `desired` must be of its object type (a misspelt field does not compile).
 */
export async function applyOwned<T extends KubeObject = KubeObject>(
  client: KubeClient,
  desired: NoInfer<T>,
  options: ApplyOptions<T>,
): Promise<ApplyResult<T>> {
  const meta = desired.metadata ?? {};
  if (!desired.apiVersion || !desired.kind || !meta.name) {
    throw new Error(`desired object needs apiVersion, kind and metadata.name, got ${desired.kind}/${meta.name}`);
  }
  // The live object and the apiserver's answers are objects of the kind `resource` names (typed by it).
  if (options.live && isApplied(desired, options.live)) return { object: options.live as T, changed: false };
  const body = withHash(desired);
  if (options.createWhenAbsent && !options.live) {
    try {
      return { object: (await client.create(body, { fieldManager: options.fieldManager })) as T, changed: true };
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
  const object = await client.patch(
    options.resource ?? { apiVersion: desired.apiVersion, kind: desired.kind },
    meta.name,
    meta.namespace,
    { type: 'apply', body },
    { fieldManager: options.fieldManager, force: options.force ?? true },
  );
  return { object: object as T, changed: true };
}
