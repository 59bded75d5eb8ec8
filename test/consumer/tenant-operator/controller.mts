import { ControllerBuilder, isNotFound, KubeClient, KubeObject, Manager, NETWORKPOLICY, POD, ResourceRef, ROLEBINDING, setLabelOwner } from 'cdk8s-operator/runtime';
import { NAMESPACE, RESOURCEQUOTA, TENANT } from './contract';

export const FINALIZER = 'tenancy.example.com/namespace-empty';

const absent = (e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e));

async function ensure(client: KubeClient, ref: ResourceRef, obj: KubeObject): Promise<void> {
  const existing = await client.get(ref, obj.metadata!.name!, obj.metadata!.namespace).catch(absent);
  if (!existing) await client.create(obj);
}

/**
 * Per tenant: namespace tenant-<name> with a ResourceQuota, a RoleBinding giving the owners the built-in admin, a
 * default-deny NetworkPolicy, all owned by label; a finalizer that holds the tenant's deletion while the namespace has
 * pods. `held` counts reconciles that held.
 */
export function setupTenantController(manager: Manager, stats: { held: number }): void {
  const client = manager.readYourWritesClient;
  new ControllerBuilder(manager, { name: 'tenants' })
    .for(TENANT)
    .ownsByLabel(NAMESPACE).ownsByLabel(RESOURCEQUOTA).ownsByLabel(ROLEBINDING).ownsByLabel(NETWORKPOLICY)
    .complete({
      reconcile: async (request) => {
        const tenant = await client.get(TENANT, request.name).catch(absent);
        if (!tenant) return {};
        const ns = `tenant-${request.name}`;
        const finalizers = tenant.metadata?.finalizers ?? [];
        const setStatus = async (phase: string, message: string) => {
          const status = (tenant as any).status ?? {};
          if (status.phase !== phase || status.message !== message) {
            await client.patch(TENANT, request.name, undefined, { type: 'merge', body: { status: { phase, message } } }, { subresource: 'status' });
          }
        };
        if (tenant.metadata?.deletionTimestamp) {
          if (!finalizers.includes(FINALIZER)) return {};
          const pods = (await client.list(POD, { namespace: ns })).items.length;
          if (pods > 0) {
            stats.held++;
            await setStatus('Terminating', `waiting for ${pods} pod(s) in ${ns}`);
            return { requeueAfter: 300 };
          }
          await client.delete(NAMESPACE, ns).catch(absent);
          await client.patch(TENANT, request.name, undefined, { type: 'json', ops: [
            { op: 'test', path: '/metadata/finalizers', value: finalizers },
            { op: 'replace', path: '/metadata/finalizers', value: finalizers.filter((f) => f !== FINALIZER) },
          ] });
          return {};
        }
        if (!finalizers.includes(FINALIZER)) {
          await client.patch(TENANT, request.name, undefined, { type: 'merge', body: { metadata: { finalizers: [...finalizers, FINALIZER] } } });
        }
        const spec = (tenant as any).spec as { owners: string[]; pods?: number };
        const own = <T extends KubeObject>(o: T) => setLabelOwner(tenant, o);
        await ensure(client, NAMESPACE, own({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
        await ensure(client, RESOURCEQUOTA, own({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'tenant-quota', namespace: ns }, spec: { hard: { pods: String(spec.pods ?? 10) } } } as KubeObject));
        await ensure(client, ROLEBINDING, own({
          apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'owners-admin', namespace: ns },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
          subjects: spec.owners.map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name })),
        } as KubeObject));
        await ensure(client, NETWORKPOLICY, own({
          apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'default-deny', namespace: ns },
          spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
        } as KubeObject));
        await setStatus('Ready', `namespace ${ns}`);
        return {};
      },
    });
}
