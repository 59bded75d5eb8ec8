import type { KubeClient, KubeObject, TypedResourceRef } from 'cdk8s-operator/runtime';
import {
  applyOwned, ControllerBuilder, getLabelOwner, isNotFound, Manager, NAMESPACE, NETWORKPOLICY, POD, recordReconcileError,
  RESOURCEQUOTA, ROLEBINDING, setCondition, setLabelOwner, updateStatus,
} from 'cdk8s-operator/runtime';
import { Tenant, TENANT } from './contract';

export const FINALIZER = 'tenancy.example.com/namespace-empty';
const FIELD_MANAGER = 'tenant-operator';

const absent = (e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e));

/** The tenant's own children only: an object of that name it does not own (by label) is an error, never adopted. */
async function ensure<T extends KubeObject>(client: KubeClient, tenant: Tenant, ref: TypedResourceRef<T>, desired: NoInfer<T>): Promise<void> {
  const { name, namespace } = desired.metadata!;
  const live = await client.get(ref, name!, namespace).catch(absent);
  if (live && getLabelOwner(live)?.uid !== tenant.metadata!.uid) {
    throw new Error(`${ref.kind} ${namespace ? `${namespace}/` : ''}${name} exists and is not tenant ${tenant.metadata!.name}'s: rename or remove it`);
  }
  // typed by ref: a misspelt field of a Namespace, ResourceQuota, RoleBinding or NetworkPolicy does not compile
  await applyOwned(client, setLabelOwner(tenant, desired), { resource: ref, fieldManager: FIELD_MANAGER, live });
}

async function setStatus(client: KubeClient, tenant: Tenant, phase: string, message: string): Promise<void> {
  const conditions = phase === 'Ready'
    ? setCondition(tenant.status?.conditions, { type: 'Ready', status: 'True', reason: 'Reconciled', message, observedGeneration: tenant.metadata!.generation })
    : tenant.status?.conditions;
  await updateStatus(client, tenant, { ...tenant.status, phase, message, ...(conditions ? { conditions } : {}) }, { resource: TENANT, fieldManager: FIELD_MANAGER });
}

async function reconcileTenant(client: KubeClient, tenant: Tenant, stats: { held: number }): Promise<{ requeueAfter?: number }> {
  const name = tenant.metadata!.name!;
  const ns = `tenant-${name}`;
  const finalizers = tenant.metadata?.finalizers ?? [];
  if (tenant.metadata?.deletionTimestamp) {
    if (!finalizers.includes(FINALIZER)) return {};
    // only a namespace this tenant owns holds it, and only that one is deleted
    const live = await client.get(NAMESPACE, ns).catch(absent);
    if (live && getLabelOwner(live)?.uid === tenant.metadata!.uid) {
      const pods = (await client.list(POD, { namespace: ns })).items.length;
      if (pods > 0) {
        stats.held++;
        await setStatus(client, tenant, 'Terminating', `waiting for ${pods} pod(s) in ${ns}`);
        return { requeueAfter: 300 };
      }
      await client.delete(NAMESPACE, ns).catch(absent);
    }
    await client.patch(TENANT, name, undefined, { type: 'json', ops: [
      { op: 'test', path: '/metadata/finalizers', value: finalizers },
      { op: 'replace', path: '/metadata/finalizers', value: finalizers.filter((f) => f !== FINALIZER) },
    ] });
    return {};
  }
  if (!finalizers.includes(FINALIZER)) {
    await client.patch(TENANT, name, undefined, { type: 'merge', body: { metadata: { finalizers: [...finalizers, FINALIZER] } } });
  }
  await ensure(client, tenant, NAMESPACE, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await ensure(client, tenant, RESOURCEQUOTA, {
    apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'tenant-quota', namespace: ns },
    spec: { hard: { pods: String(tenant.spec.pods ?? 10) } },
  });
  await ensure(client, tenant, ROLEBINDING, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'owners-admin', namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
    subjects: tenant.spec.owners.map((user) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user })),
  });
  await ensure(client, tenant, NETWORKPOLICY, {
    apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'default-deny', namespace: ns },
    spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
  });
  await setStatus(client, tenant, 'Ready', `namespace ${ns}`);
  return {};
}

/**
 * Per tenant: namespace tenant-<name> with a ResourceQuota, a RoleBinding giving the owners the built-in admin, a
 * default-deny NetworkPolicy, all owned by label; a finalizer that holds the tenant's deletion while the namespace has
 * pods. A failed reconcile is Ready=False with the error's reason and one Warning event (retried with backoff).
 * `held` counts reconciles that held.
 */
export function setupTenantController(manager: Manager, stats: { held: number }): void {
  const client = manager.readYourWritesClient;
  const recorder = manager.eventRecorder('tenancy.example.com/tenant-operator');
  new ControllerBuilder(manager, { name: 'tenants' })
    .for(TENANT)
    .ownsByLabel(NAMESPACE).ownsByLabel(RESOURCEQUOTA).ownsByLabel(ROLEBINDING).ownsByLabel(NETWORKPOLICY)
    .complete({
      reconcile: async (request) => {
        const tenant = (await client.get(TENANT, request.name).catch(absent)) as Tenant | undefined;
        if (!tenant) return {};
        try {
          return await reconcileTenant(client, tenant, stats);
        } catch (err) {
          await recordReconcileError(client, recorder, tenant, err, { resource: TENANT, fieldManager: FIELD_MANAGER });
          throw err;
        }
      },
    });
}
