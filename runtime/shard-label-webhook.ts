/**
 * The labelling webhook of a shard ring (assignment `labels`, shard-labels.ts): a defaulting (mutating) admission
 * handler that writes the shard label into an object's create request, so the object is in its owner's share from
 * its first event and the assigner does not patch it afterwards (kubernetes-controller-sharding's sharder webhook).
 *
 * Expected flow:
 * ```ts
 * const manager = new Manager({ sharding: { ring: 'foo', key: 'namespace' }, webhookServer: { ... } });
 * manager.webhookServer!.defaulting('/label-shard-foo', shardLabelDefaulting(manager));
 * // a MutatingWebhookConfiguration for CREATE of the sharded kinds, failurePolicy: Ignore
 * ```
 *
 * Guarantees:
 * - The label is the owner in the view every member acts on (`Manager.shardLabelAtAdmission`), by a key known
 *   before the apiserver assigns a UID: the namespace (`key: 'namespace'`), or the controller owner's UID.
 * - Anything it cannot decide (a `key: 'uid'` object without a controller owner, a member not acting yet, an
 *   object already labelled, an UPDATE) is admitted unchanged: the assigner's watch labels it, as without the
 *   webhook. Use `failurePolicy: Ignore`: a create never waits on the ring.
 * - Each label it writes is counted as `controller_runtime_shard_label_writes_total{reason="admission"}`.
 *
 * Caveats:
 * - With `key: 'uid'` an object created by a user (a Foo) has no UID at admission: only `key: 'namespace'` saves
 *   the assigner's patch for those.
 * - A label computed on a view that changes before the object is first seen is what a reconcile's create gets too:
 *   a stale label makes the object wait for a move, never gives it to two members (who reconciles is the ring's).
 */
import type { Manager } from './manager';
import type { KubeObject } from './resource';
import type { DefaultingHandler } from './webhook/defaulting';

/** The defaulting handler that labels created objects with their shard owner (see the module comment). */
export function shardLabelDefaulting(manager: Manager): DefaultingHandler<KubeObject> {
  return (obj, request) => {
    if (request.operation !== 'CREATE') return undefined;
    const at = manager.shardLabelAtAdmission(obj, request.namespace);
    if (!at || obj.metadata?.labels?.[at.label] !== undefined) return undefined;
    obj.metadata = { ...obj.metadata, labels: { ...obj.metadata?.labels, [at.label]: at.member } };
    manager.metrics.shardLabelWrites.inc({ ring: at.ring, reason: 'admission' });
    return obj;
  };
}
