/**
 * Cache transforms: what an informer keeps of each object (client-go `SetTransform`, controller-runtime
 * `cache.Options.ByObject[].Transform`, kube-rs dropping `managedFields` in its reflector).
 *
 * Expected flow: the manager gives every informer {@link stripForCache} unless its kind asks for more
 * (`manager.getStore(ref, { transform })`, `ControllerBuilder.owns(ref, { cache: { transform } })`);
 * {@link keepFields} builds a projection to the fields a controller reads.
 *
 * Guarantees:
 * - A transform runs once per object, before it enters the cache and before any handler sees it
 *   (list items, watch events and the final state of a deleted object alike), on a fresh object no one
 *   else holds, so it may change it in place or return a new one.
 * - {@link keepFields} builds new objects holding only the masked paths (no `delete`: V8 turns an object
 *   with deleted properties into a slower, larger dictionary), arrays element by element.
 *
 * Caveats: a field dropped from the cache is absent for every reader of that informer: a reconciler
 * comparing a desired object with the cached one (`applyOwned`) needs every field it sets kept.
 */
import { KubeObject } from './resource';

/** Turns an object as the apiserver sent it into what the cache keeps. */
export type CacheTransform = (obj: KubeObject) => KubeObject;

/** What the informer of one kind keeps (set by the first user of the kind's informer). */
export interface CacheOptions {
  /** @default stripForCache; `false` keeps what the watch delivered */
  readonly transform?: CacheTransform | false;
  /** Only objects' metadata (see `WatcherOptions.metadataOnly`). @default false */
  readonly metadataOnly?: boolean;
}

/** kubectl's client-side-apply copy of the whole object: as large as the object, never read by a controller. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * The default transform of every informer: drops `metadata.managedFields` (20–25 % of an object's bytes)
 * and kubectl's last-applied-configuration annotation. Both only matter to writers that merge fields
 * client-side; server-side apply and the runtime's writes never read them from the cache.
 */
export const stripForCache: CacheTransform = (obj) => {
  const meta = obj.metadata;
  if (!meta) return obj;
  if (meta.managedFields !== undefined) delete meta.managedFields; // the last key of ObjectMeta: V8's fast delete
  if (meta.annotations && LAST_APPLIED_ANNOTATION in meta.annotations) {
    const { [LAST_APPLIED_ANNOTATION]: _dropped, ...rest } = meta.annotations;
    meta.annotations = rest;
  }
  return obj;
};

/** Which fields to keep: `true` keeps the whole value; an object keeps those keys; `[mask]` applies to every element. */
export type FieldMask = true | { readonly [key: string]: FieldMask } | readonly [FieldMask];

/**
 * A transform keeping `apiVersion`, `kind`, the whole `metadata` (after {@link stripForCache}) and the
 * fields of `mask`. Absent fields stay absent.
 */
export function keepFields(mask: { readonly [key: string]: FieldMask }): CacheTransform {
  const full = { ...mask, apiVersion: true, kind: true, metadata: true } as const;
  return (obj) => project(stripForCache(obj), full) as KubeObject;
}

function project(value: unknown, mask: FieldMask): unknown {
  if (mask === true || value === null || typeof value !== 'object') return value;
  if (Array.isArray(mask)) {
    return Array.isArray(value) ? value.map((v) => project(v, (mask as readonly [FieldMask])[0])) : value;
  }
  if (Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(mask)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = project(v, (mask as { readonly [key: string]: FieldMask })[key]);
  }
  return out;
}
