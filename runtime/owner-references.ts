/**
 * Controller owner references (controller-runtime `controllerutil.SetControllerReference`).
 *
 * Guarantees: {@link controllerReference} sets `controller: true` and `blockOwnerDeletion: true`
 * (the latter needs `update` on `<plural>/finalizers` of the owner in RBAC);
 * {@link setControllerReference} refuses to take over an object controlled by someone else.
 */
import { AlreadyOwnedError } from './errors';
import { groupKind, KubeObject, OwnerReference } from './resource';

/** The controller ownerReference pointing at `owner`. */
export function controllerReference(owner: KubeObject): OwnerReference {
  const meta = owner.metadata ?? {};
  if (!owner.apiVersion || !owner.kind || !meta.name || !meta.uid) {
    throw new Error(
      `owner must have apiVersion, kind, metadata.name and metadata.uid, got ${owner.kind}/${meta.name} uid=${meta.uid}`,
    );
  }
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: meta.name,
    uid: meta.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The first `controller: true` ownerReference, optionally only of the given group/kind. */
export function getControllerOf(
  obj: KubeObject,
  ownerType?: { apiVersion: string; kind: string },
): OwnerReference | undefined {
  const want = ownerType ? groupKind(ownerType) : undefined;
  return (obj.metadata?.ownerReferences ?? []).find((r) => r.controller === true && (!want || groupKind(r) === want));
}

/** True if `obj`'s controller reference points at `owner` (by uid). */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const ref = getControllerOf(obj);
  return !!ref && ref.uid === owner.metadata?.uid;
}

/**
 * Returns `obj` with the controller reference to `owner` set (replacing an older reference to the
 * same owner). Throws {@link AlreadyOwnedError} if another controller owns it.
 */
export function setControllerReference<T extends KubeObject>(owner: KubeObject, obj: T): T {
  const ref = controllerReference(owner);
  const existing = getControllerOf(obj);
  if (existing && existing.uid !== ref.uid) {
    throw new AlreadyOwnedError(
      `${obj.kind} ${obj.metadata?.namespace ?? ''}/${obj.metadata?.name} is already controlled by ${existing.kind} ${existing.name}`,
    );
  }
  const others = (obj.metadata?.ownerReferences ?? []).filter((r) => r.uid !== ref.uid);
  return { ...obj, metadata: { ...obj.metadata, ownerReferences: [...others, ref] } };
}
