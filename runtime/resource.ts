/**
 * Kubernetes object shapes and resource addressing used across the runtime.
 *
 * A {@link ResourceRef} names a kind by `apiVersion` + `kind`; `plural` may be given (needed for
 * custom resources unless discovery is reachable). {@link objectKey} is the `namespace/name` key
 * used by caches and work queues.
 *
 * Guarantees: {@link parseObjectKey} inverts {@link objectKey}; {@link groupKind} ignores the version, as
 * RBAC rules and ownerReference matching do; {@link parseApiVersion} maps `v1` to the core group `''`.
 */
import { apiVersionKindKey, knownKinds, splitApiVersion } from '../lib/apimachinery/kinds';

/** `metav1.OwnerReference`. */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

/** `metav1.ObjectMeta` (the fields the runtime uses; others pass through). */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

/** Any Kubernetes object. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

/** Addresses a kind of resource. */
export interface ResourceRef {
  /** `group/version`, or `v1` for the core group. */
  readonly apiVersion: string;
  /** Kind, e.g. `Deployment`. */
  readonly kind: string;
  /**
   * Lower-case plural used in URLs.
   * @default - a table of built-in kinds, else API discovery
   */
  readonly plural?: string;
}

/** A request to reconcile one object. */
export interface ObjectKeyRef {
  readonly namespace?: string;
  readonly name: string;
}

/** Splits an apiVersion into group and version (`v1` → group ''). */
export const parseApiVersion: (apiVersion: string) => { group: string; version: string } = splitApiVersion;

/** `Kind.group` — identifies a kind independent of version (ownerReference matching uses this). */
export function groupKind(ref: { apiVersion?: string; kind?: string }): string {
  return `${ref.kind}.${parseApiVersion(ref.apiVersion ?? '').group}`;
}

/** The `namespace/name` (or `name` for cluster-scoped) key of an object or reference. */
export function objectKey(obj: KubeObject | ObjectKeyRef): string {
  const meta: { namespace?: string; name?: string } =
    'metadata' in obj && obj.metadata ? obj.metadata : (obj as ObjectKeyRef);
  return meta.namespace ? `${meta.namespace}/${meta.name}` : `${meta.name}`;
}

/** Inverse of {@link objectKey}. */
export function parseObjectKey(key: string): ObjectKeyRef {
  const i = key.indexOf('/');
  return i < 0 ? { name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** A stable id for a resource kind (`apps/v1/Deployment`). */
export function resourceId(ref: ResourceRef): string {
  return `${ref.apiVersion}/${ref.kind}`;
}

/** Removes `metadata.managedFields` (20–25 % of cached bytes) and returns the same object. */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  if (obj.metadata && 'managedFields' in obj.metadata) delete obj.metadata.managedFields;
  return obj;
}

/**
 * Plurals of the built-in kinds, keyed `apps/v1/Deployment`, so no discovery request is needed for them
 * (lib/apimachinery's kinds table, the one the construct library derives RBAC from).
 */
export const WELL_KNOWN_PLURALS: Readonly<Record<string, string>> = Object.fromEntries(
  knownKinds().map((k) => [apiVersionKindKey(k), k.plural]),
);

/** Plural and scope of a built-in kind (`apps/v1`, `Deployment`), from the same table; undefined for other kinds. */
export function builtinKindInfo(
  apiVersion: string,
  kind: string,
): { readonly plural: string; readonly namespaced: boolean } | undefined {
  const { group } = splitApiVersion(apiVersion);
  return knownKinds().find((k) => k.group === group && k.kind === kind);
}
