/**
 * Ownership by label: a child tied to its owner by a label (its uid) and an annotation (its coordinates) instead of an
 * ownerReference, so the garbage collector never deletes it. What a finalizer that must hold the owner's deletion
 * needs (docs/deletion-holds.md): with a controller reference, `kubectl delete --cascade=foreground` lets the
 * garbage collector delete the children first, whatever the owner's finalizers say. Also the way to own across
 * namespaces or a cluster-scoped child from a namespaced owner, which ownerReferences cannot express.
 * As Crossplane's `crossplane.io/composite` label and controller-runtime's `EnqueueRequestsFromMapFunc` do:
 * `ControllerBuilder.ownsByLabel(kind)` maps each child's events back to its owner.
 *
 * Expected flow (in a reconcile):
 * ```ts
 * const ns = setLabelOwner(tenant, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `tenant-${name}` } });
 * await client.apply(ns);                    // the finalizer deletes it, when it may
 * await client.list(NAMESPACE, { labelSelector: labelOwnerSelector(tenant) });   // every child of this tenant
 * ```
 *
 * Guarantees: {@link setLabelOwner} refuses (AlreadyOwnedError) a child labelled for another owner (another uid: a
 * recreated owner of the same name does not adopt its predecessor's children); {@link getLabelOwner} ignores an
 * annotation whose uid does not match the label (a copied annotation does not make an owner).
 *
 * Caveats: nothing deletes a label-owned child but the operator: its finalizer must, or the child outlives the owner.
 */
import { AlreadyOwnedError } from './errors';
import { groupKind, KubeObject, ResourceRef } from './resource';

/** Label holding the owner's uid: select every child of an owner with {@link labelOwnerSelector}. */
export const OWNER_UID_LABEL = 'owner.cdk8s-operator.io/uid';
/** Annotation holding the owner's coordinates (JSON of {@link LabelOwnerRef}): names are too long for a label value. */
export const OWNER_ANNOTATION = 'owner.cdk8s-operator.io/ref';

/** Who owns a label-owned child. */
export interface LabelOwnerRef {
  readonly apiVersion: string;
  readonly kind: string;
  /** The owner's namespace. @default - none: the owner is cluster-scoped */
  readonly namespace?: string;
  readonly name: string;
  readonly uid: string;
}

function refOf(owner: KubeObject): LabelOwnerRef {
  const meta = owner.metadata ?? {};
  if (!owner.apiVersion || !owner.kind || !meta.name || !meta.uid) {
    throw new Error(
      `owner must have apiVersion, kind, metadata.name and metadata.uid, got ${owner.kind}/${meta.name} uid=${meta.uid}`,
    );
  }
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    ...(meta.namespace ? { namespace: meta.namespace } : {}),
    name: meta.name,
    uid: meta.uid,
  };
}

/** The owner a child is labelled for, when its label and annotation agree (optionally only of the given kind). */
export function getLabelOwner(obj: KubeObject, ownerType?: ResourceRef): LabelOwnerRef | undefined {
  const uid = obj.metadata?.labels?.[OWNER_UID_LABEL];
  const raw = obj.metadata?.annotations?.[OWNER_ANNOTATION];
  if (!uid || !raw) return undefined;
  let ref: LabelOwnerRef;
  try {
    ref = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (
    ref?.uid !== uid ||
    typeof ref.name !== 'string' ||
    typeof ref.kind !== 'string' ||
    typeof ref.apiVersion !== 'string'
  ) {
    return undefined;
  }
  if (ownerType && groupKind(ref) !== groupKind(ownerType)) return undefined;
  return ref;
}

/**
 * `obj` labelled and annotated as owned by `owner` (no ownerReference). Throws {@link AlreadyOwnedError} when it is
 * labelled for another owner.
 */
export function setLabelOwner<T extends KubeObject>(owner: KubeObject, obj: T): T {
  const ref = refOf(owner);
  const existing = obj.metadata?.labels?.[OWNER_UID_LABEL];
  if (existing && existing !== ref.uid) {
    const other = getLabelOwner(obj);
    throw new AlreadyOwnedError(
      `${obj.kind} ${obj.metadata?.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata?.name} is already owned (by label) by ${other ? `${other.kind} ${other.name}` : `uid ${existing}`}`,
    );
  }
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      labels: { ...obj.metadata?.labels, [OWNER_UID_LABEL]: ref.uid },
      annotations: { ...obj.metadata?.annotations, [OWNER_ANNOTATION]: JSON.stringify(ref) },
    },
  };
}

/** The label selector of every child labelled for `owner` (for `list` and informers). */
export function labelOwnerSelector(owner: KubeObject): string {
  return `${OWNER_UID_LABEL}=${refOf(owner).uid}`;
}
