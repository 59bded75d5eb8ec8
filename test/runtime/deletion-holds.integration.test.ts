/**
 * Deletion holds on a control plane whose garbage collector knows the owner's kind: a finalizer on a cluster-scoped
 * Tenant that must keep the tenant's namespace while it has pods. Deleted with `kubectl delete --cascade=foreground`
 * (propagationPolicy Foreground):
 * - owned through a controller reference (`owns` + `setControllerReference`), the garbage collector deletes the
 *   namespace (and the namespace controller its pod) while the finalizer still says "hold": the hold does not hold;
 * - owned by label (`ownsByLabel` + `setLabelOwner`), nothing but the operator deletes the namespace: it stays, pod
 *   and all, until the pod is gone; then the finalizer deletes it and lets the tenant go;
 * - owned through a controller reference with the operator's finalizer on the namespace too (the blocking
 *   alternative), the namespace is deleted at once but stays Terminating until the tenant's finalizer lets go; its
 *   pod is deleted by the namespace controller all the same.
 * docs/deletion-holds.md explains both.
 */
import { RestClient } from '../../runtime/client';
import { ControllerBuilder } from '../../runtime/controller';
import { isNotFound } from '../../runtime/errors';
import { getLabelOwner, labelOwnerSelector, setLabelOwner } from '../../runtime/label-owner';
import { Manager } from '../../runtime/manager';
import { setControllerReference } from '../../runtime/owner-references';
import { KubeObject } from '../../runtime/resource';
import { StandInKubelet, describeEachApiServerVersion } from '../envtest';
import { FAST_INFORMER, sleep, testLogger, until } from './support';

const TENANT = { apiVersion: 'holds.example.com/v1', kind: 'Tenant', plural: 'tenants' };
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces' };
const POD = { apiVersion: 'v1', kind: 'Pod', plural: 'pods' };
const FINALIZER = 'holds.example.com/namespace-empty';

const tenantCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'tenants.holds.example.com' },
  spec: {
    group: 'holds.example.com',
    scope: 'Cluster',
    names: { kind: 'Tenant', plural: 'tenants', singular: 'tenant', listKind: 'TenantList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { owner: { type: 'string' } } } },
          },
        },
      },
    ],
  },
};

/** `child-finalizer`: a controller reference, and the operator's finalizer on the child too (the blocking alternative). */
type Ownership = 'controller-reference' | 'label' | 'child-finalizer';
const PREFIX: Record<Ownership, string> = { 'controller-reference': 'ref', label: 'lbl', 'child-finalizer': 'fin' };

/**
 * The tenant controller: a namespace per tenant (owned as `ownership` says), a finalizer that removes it only once
 * it has no pods. `held` counts the reconciles that kept the finalizer because pods remained.
 */
function startTenantController(plane: () => import('../../runtime/envtest').ControlPlane, ownership: Ownership) {
  const client = RestClient.fromKubeConfig(plane().kubeConfig());
  const manager = new Manager({ kubeConfig: plane().kubeConfig(), logger: testLogger(), informer: FAST_INFORMER });
  /**
   * held: reconciles that kept the finalizer (pods remained); namespaceLostFirst: when the finalizer let go, the
   * namespace was already being deleted, or gone; namespaceAtRelease: which of the three it was, the first time.
   */
  const stats = {
    held: 0,
    namespaceLostFirst: undefined as boolean | undefined,
    namespaceAtRelease: undefined as 'live' | 'terminating' | 'gone' | undefined,
  };
  const nsName = (tenant: string) => `${PREFIX[ownership]}-${tenant}`;
  const builder = new ControllerBuilder(manager, { name: `tenants-${PREFIX[ownership]}` }).for(TENANT);
  if (ownership === 'label') builder.ownsByLabel(NAMESPACE);
  else builder.owns(NAMESPACE);
  builder.complete({
    reconcile: async (req) => {
      const tenant: KubeObject = await client.get(TENANT, req.name).catch((e) => {
        if (isNotFound(e)) return undefined as any;
        throw e;
      });
      if (!tenant) return {};
      const name = nsName(tenant.metadata!.name!);
      const finalizers = tenant.metadata!.finalizers ?? [];
      if (tenant.metadata!.deletionTimestamp) {
        if (!finalizers.includes(FINALIZER)) return {};
        const pods = await client.list(POD, { namespace: name });
        if (pods.items.length > 0) {
          stats.held++;
          return { requeueAfter: 200 };
        }
        const ns = await client.get(NAMESPACE, name).catch((e) => {
          if (isNotFound(e)) return undefined;
          throw e;
        });
        stats.namespaceLostFirst = !ns || !!ns.metadata?.deletionTimestamp;
        // the first release counts (a retry, after the finalizers changed under the JSON patch's test, sees it gone)
        stats.namespaceAtRelease ??= !ns ? 'gone' : ns.metadata?.deletionTimestamp ? 'terminating' : 'live';
        const nsFinalizers = ns?.metadata?.finalizers ?? [];
        if (ownership === 'child-finalizer' && nsFinalizers.includes(FINALIZER)) {
          // the child's hold goes with the parent's
          await client.patch(NAMESPACE, name, undefined, {
            type: 'json',
            ops: [
              { op: 'test', path: '/metadata/finalizers', value: nsFinalizers },
              { op: 'replace', path: '/metadata/finalizers', value: nsFinalizers.filter((f) => f !== FINALIZER) },
            ],
          });
        }
        await client.delete(NAMESPACE, name).catch((e) => {
          if (!isNotFound(e)) throw e;
        });
        await client.patch(TENANT, tenant.metadata!.name!, undefined, {
          type: 'json',
          ops: [
            { op: 'test', path: '/metadata/finalizers', value: finalizers },
            { op: 'replace', path: '/metadata/finalizers', value: finalizers.filter((f) => f !== FINALIZER) },
          ],
        });
        return {};
      }
      if (!finalizers.includes(FINALIZER)) {
        await client.patch(TENANT, tenant.metadata!.name!, undefined, {
          type: 'merge',
          body: { metadata: { finalizers: [...finalizers, FINALIZER] } },
        });
      }
      const existing = await client.get(NAMESPACE, name).catch((e) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
      if (!existing) {
        const ns: KubeObject = {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name, ...(ownership === 'child-finalizer' ? { finalizers: [FINALIZER] } : {}) },
        };
        await client.create(ownership === 'label' ? setLabelOwner(tenant, ns) : setControllerReference(tenant, ns));
        await client.create({
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: 'default', namespace: name },
        });
      }
      return {};
    },
  });
  const running = manager.start();
  return {
    nsName,
    stats,
    stop: async () => {
      await manager.stop();
      await running.catch(() => undefined);
      client.close();
    },
  };
}

async function tenantWithRunningPod(
  plane: () => import('../../runtime/envtest').ControlPlane,
  tenant: string,
  ns: string,
): Promise<{ kubelet: StandInKubelet; uid: string }> {
  const created = await plane().request('POST', '/apis/holds.example.com/v1/tenants', {
    apiVersion: TENANT.apiVersion,
    kind: 'Tenant',
    metadata: { name: tenant },
    spec: { owner: 'alice' },
  });
  expect(created.code).toBe(201);
  await until(
    `namespace ${ns} and its ServiceAccount`,
    async () => (await plane().request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).code === 200,
    30_000,
    100,
  );
  await until(
    'the finalizer',
    async () =>
      (
        (await plane().request('GET', `/apis/holds.example.com/v1/tenants/${tenant}`)).body.metadata.finalizers ?? []
      ).includes(FINALIZER),
    30_000,
    100,
  );
  const kubelet = new StandInKubelet(plane(), { namespace: ns }).start();
  const pod = await plane().request('POST', `/api/v1/namespaces/${ns}/pods`, {
    metadata: { name: 'workload' },
    spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'busybox' }] },
  });
  expect(pod.code).toBe(201);
  await until(
    'the pod Running',
    async () =>
      (await plane().request('GET', `/api/v1/namespaces/${ns}/pods/workload`)).body.status?.phase === 'Running',
    30_000,
    100,
  );
  return { kubelet, uid: created.body.metadata.uid };
}

const deleteForeground = (plane: () => import('../../runtime/envtest').ControlPlane, tenant: string) =>
  plane().request('DELETE', `/apis/holds.example.com/v1/tenants/${tenant}`, {
    kind: 'DeleteOptions',
    apiVersion: 'v1',
    propagationPolicy: 'Foreground',
  });

describeEachApiServerVersion(
  'deletion holds: controller references vs label ownership under foreground deletion',
  (plane) => {
    beforeAll(async () => {
      // installed after start: installCrds restarts kube-controller-manager, so the garbage collector watches Tenants
      // (on a cluster it would within 30 s; without it, a foreground deletion would wait forever and "hold" anything)
      await plane().installCrds([tenantCrd]);
    }, 120_000);

    test('the garbage collector knows Tenants: a foreground deletion with no dependents finishes', async () => {
      const created = await plane().request('POST', '/apis/holds.example.com/v1/tenants', {
        apiVersion: TENANT.apiVersion,
        kind: 'Tenant',
        metadata: { name: 'probe' },
        spec: {},
      });
      expect(created.code).toBe(201);
      expect((await deleteForeground(plane, 'probe')).body.metadata.finalizers).toEqual(['foregroundDeletion']);
      await until(
        'the probe gone',
        async () => (await plane().request('GET', '/apis/holds.example.com/v1/tenants/probe')).code === 404,
        20_000,
        100,
      );
    }, 60_000);

    test('controller reference: --cascade=foreground deletes the namespace and its running pod while the finalizer holds (the documented trap)', async () => {
      const ctl = startTenantController(plane, 'controller-reference');
      const { kubelet } = await tenantWithRunningPod(plane, 'acme', ctl.nsName('acme'));
      try {
        const ns = ctl.nsName('acme');
        expect((await plane().request('GET', `/api/v1/namespaces/${ns}`)).body.metadata.ownerReferences).toEqual([
          expect.objectContaining({ kind: 'Tenant', name: 'acme', controller: true, blockOwnerDeletion: true }),
        ]);
        expect((await deleteForeground(plane, 'acme')).code).toBe(200);
        // the garbage collector deletes the blocking dependent first; the namespace controller then deletes the pod
        // (the test never deletes the pod or the namespace)
        await until(
          'the pod deleted by the namespace controller',
          async () => (await plane().request('GET', `/api/v1/namespaces/${ns}/pods/workload`)).code === 404,
          30_000,
          100,
        );
        // once the pod is gone the finalizer lets go, and everything disappears
        await until(
          'the tenant gone',
          async () => (await plane().request('GET', '/apis/holds.example.com/v1/tenants/acme')).code === 404,
          30_000,
          100,
        );
        // the finalizer saw the pod and held, in vain: when it let go, the namespace was already being deleted (or gone)
        expect([ctl.stats.held > 0, ctl.stats.namespaceLostFirst]).toEqual([true, true]);
      } finally {
        kubelet.stop();
        await ctl.stop();
      }
    }, 120_000);

    test('controller reference and a finalizer on the child (docs/deletion-holds.md, the blocking alternative): --cascade=foreground leaves the namespace Terminating, not gone, until the tenant lets go; its pod is deleted anyway', async () => {
      let ctl = startTenantController(plane, 'child-finalizer');
      const { kubelet } = await tenantWithRunningPod(plane, 'initech', ctl.nsName('initech'));
      try {
        const ns = ctl.nsName('initech');
        const getNs = async () => (await plane().request('GET', `/api/v1/namespaces/${ns}`)).body;
        const namespace = await getNs();
        expect([namespace.metadata.ownerReferences, namespace.metadata.finalizers]).toEqual([
          [expect.objectContaining({ kind: 'Tenant', name: 'initech', controller: true, blockOwnerDeletion: true })],
          [FINALIZER],
        ]);
        expect((await deleteForeground(plane, 'initech')).code).toBe(200);
        // the garbage collector deletes the namespace at once: it is Terminating
        await until(
          'the namespace Terminating',
          async () => !!(await getNs()).metadata?.deletionTimestamp,
          30_000,
          100,
        );
        // the operator is down from here: nothing but the child's finalizer can keep the namespace
        await ctl.stop();
        // what deletes its contents still runs: the namespace controller deletes the running pod (the test does not)
        // and finishes its own work (spec.finalizers emptied); the namespace stays, held by the operator's finalizer
        await until(
          'the namespace controller done',
          async () => {
            const n = await getNs();
            return (n.spec?.finalizers ?? []).length === 0 && n;
          },
          30_000,
          100,
        );
        expect((await plane().request('GET', `/api/v1/namespaces/${ns}/pods/workload`)).code).toBe(404);
        const held = await plane().request('GET', `/api/v1/namespaces/${ns}`);
        expect([held.code, held.body.metadata.finalizers, !!held.body.metadata.deletionTimestamp]).toEqual([
          200,
          [FINALIZER],
          true,
        ]);
        // the tenant waits for it (foregroundDeletion, blockOwnerDeletion) and for its own finalizer
        expect(
          (await plane().request('GET', '/apis/holds.example.com/v1/tenants/initech')).body.metadata.finalizers,
        ).toEqual(expect.arrayContaining([FINALIZER, 'foregroundDeletion']));
        // the operator back: no pods, so it lets the namespace go, then the tenant
        ctl = startTenantController(plane, 'child-finalizer');
        await until(
          'the namespace gone',
          async () => (await plane().request('GET', `/api/v1/namespaces/${ns}`)).code === 404,
          30_000,
          100,
        );
        await until(
          'the tenant gone',
          async () => (await plane().request('GET', '/apis/holds.example.com/v1/tenants/initech')).code === 404,
          30_000,
          100,
        );
        expect(ctl.stats.namespaceAtRelease).toBe('terminating');
      } finally {
        kubelet.stop();
        await ctl.stop();
      }
    }, 120_000);

    test('label ownership: --cascade=foreground leaves the namespace and its running pod until the pod is gone, then the finalizer cleans up', async () => {
      const ctl = startTenantController(plane, 'label');
      const { kubelet, uid } = await tenantWithRunningPod(plane, 'globex', ctl.nsName('globex'));
      try {
        const ns = ctl.nsName('globex');
        const namespace = (await plane().request('GET', `/api/v1/namespaces/${ns}`)).body;
        expect(namespace.metadata.ownerReferences).toBeUndefined();
        expect(getLabelOwner(namespace, TENANT)).toEqual({
          apiVersion: TENANT.apiVersion,
          kind: 'Tenant',
          name: 'globex',
          uid,
        });
        const listed = await plane().request(
          'GET',
          `/api/v1/namespaces?labelSelector=${encodeURIComponent(labelOwnerSelector({ apiVersion: TENANT.apiVersion, kind: 'Tenant', metadata: { name: 'globex', uid } }))}`,
        );
        expect(listed.body.items.map((n: any) => n.metadata.name)).toEqual([ns]);

        const deleting = await deleteForeground(plane, 'globex');
        expect(deleting.body.metadata.finalizers).toEqual(expect.arrayContaining([FINALIZER, 'foregroundDeletion']));
        // the hold holds: for as long as the pod runs, the namespace is not even being deleted
        await until('the finalizer to have held several times', () => ctl.stats.held >= 5, 30_000, 100);
        await sleep(2000);
        const held = await plane().request('GET', `/api/v1/namespaces/${ns}`);
        expect([held.code, held.body.metadata.deletionTimestamp]).toEqual([200, undefined]);
        expect((await plane().request('GET', `/api/v1/namespaces/${ns}/pods/workload`)).body.status.phase).toBe(
          'Running',
        );
        expect(
          (await plane().request('GET', '/apis/holds.example.com/v1/tenants/globex')).body.metadata.finalizers,
        ).toEqual(expect.arrayContaining([FINALIZER]));

        // the pod ends: the finalizer deletes the namespace and lets go; the garbage collector finishes the foreground deletion
        expect(
          (
            await plane().request('DELETE', `/api/v1/namespaces/${ns}/pods/workload`, {
              kind: 'DeleteOptions',
              apiVersion: 'v1',
              gracePeriodSeconds: 0,
            })
          ).code,
        ).toBe(200);
        await until(
          'the tenant gone',
          async () => (await plane().request('GET', '/apis/holds.example.com/v1/tenants/globex')).code === 404,
          30_000,
          100,
        );
        await until(
          'the namespace gone',
          async () => (await plane().request('GET', `/api/v1/namespaces/${ns}`)).code === 404,
          30_000,
          100,
        );
        // the finalizer, not the garbage collector, decided: the namespace was live when it let go
        expect(ctl.stats.namespaceLostFirst).toBe(false);
      } finally {
        kubelet.stop();
        await ctl.stop();
      }
    }, 120_000);
  },
  // the library's default controllers (the garbage collector and namespace lifecycle run); the same configuration as
  // binds-rbac.integration.test.ts, so that the two share one control plane per version in a jest worker
  {
    controllerManager: undefined,
    apiServerFlags: ['--enable-admission-plugins=OwnerReferencesPermissionEnforcement'],
    shared: true,
  },
);
