/**
 * Optional stand-in for kube-controller-manager + kubelets: Deployments and StatefulSets become fully
 * available shortly after each spec change (status.observedGeneration, replicas, ready/available/updated
 * replicas, conditions), so end-to-end operator tests can wait for readiness like against a real cluster.
 */
import { clone, nowTimestamp } from './json-util';
import { Registry } from './registry';
import { ResourceCatalog } from './resources';
import { StoredEvent, Store } from './store';

export function simulateWorkloads(store: Store, registry: Registry, catalog: ResourceCatalog, delayMs: number): () => void {
  const timers = new Set<NodeJS.Timeout>();
  const unsubscribe = store.subscribe((ev: StoredEvent) => {
    if (ev.type === 'DELETED' || (ev.storageKey !== 'apps/deployments' && ev.storageKey !== 'apps/statefulsets')) return;
    const obj = ev.object;
    if (obj.metadata.deletionTimestamp || obj.status?.observedGeneration === obj.metadata.generation) return;
    const plural = ev.storageKey.split('/')[1];
    const t = setTimeout(() => {
      timers.delete(t);
      const res = catalog.find('apps', 'v1', plural)!;
      const current = registry.tryGet(res, obj.metadata.namespace, obj.metadata.name);
      if (!current || current.metadata.generation !== obj.metadata.generation) return;
      const replicas = current.spec?.replicas ?? 1;
      const now = nowTimestamp();
      const status: any = plural === 'deployments'
        ? {
          observedGeneration: current.metadata.generation, replicas, updatedReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas,
          conditions: [
            { type: 'Available', status: 'True', lastUpdateTime: now, lastTransitionTime: now, reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
            { type: 'Progressing', status: 'True', lastUpdateTime: now, lastTransitionTime: now, reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${current.metadata.name}-fake" has successfully progressed.` },
          ],
        }
        : {
          observedGeneration: current.metadata.generation, replicas, readyReplicas: replicas, availableReplicas: replicas, currentReplicas: replicas, updatedReplicas: replicas,
          currentRevision: `${current.metadata.name}-fake`, updateRevision: `${current.metadata.name}-fake`, collisionCount: 0,
        };
      if (replicas === 0) for (const k of ['readyReplicas', 'availableReplicas', 'updatedReplicas']) delete status[k];
      const next = clone(current);
      next.status = status;
      registry.applyWrite(res, current, next, { manager: 'kube-controller-manager', subresource: 'status' });
    }, delayMs);
    timers.add(t);
  });
  return () => {
    unsubscribe();
    for (const t of timers) clearTimeout(t);
  };
}
