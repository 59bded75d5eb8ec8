/**
 * contract.binds on the real apiserver, with ClusterRole aggregation running (the built-in `admin` has its rules): the
 * rules derived from a role-granting contract are enough for the operator, under its own ServiceAccount, to bind
 * `admin` for a tenant's owners, and none is spare: without any one of them a step of its job gets 403, the bind
 * rule's absence the apiserver's "attempting to grant RBAC permissions not currently held".
 */
import { Chart, Testing } from 'cdk8s';
import { CustomResourceDefinition, Operator, ResourceScope, Schema } from '../../lib';
import { ControlPlane, Identity } from '../../runtime/envtest';
import { describeEachApiServerVersion } from '../envtest';
import { until } from '../runtime/support';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const TENANTS = '/apis/tenancy.example.com/v1/tenants';

function chartObjects(): any[] {
  const chart = new Chart(Testing.app(), 'tenants');
  const crd = new CustomResourceDefinition(chart, 'Tenant', {
    group: 'tenancy.example.com',
    kind: 'Tenant',
    scope: ResourceScope.CLUSTER,
    versions: [
      {
        name: 'v1',
        spec: Schema.object({ properties: { owners: Schema.array(Schema.string()) } }),
        status: Schema.object({ properties: { bound: Schema.integer() } }),
      },
    ],
  });
  new Operator(chart, 'tenant-operator', {
    crds: [crd],
    image: 'ghcr.io/acme/tenant-operator:0.1.0',
    contract: {
      watches: [crd],
      owns: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' }],
      binds: [{ kind: 'ClusterRole', name: 'admin' }],
      status: true,
    },
  });
  return Testing.synth(chart);
}

/** What the operator does for a tenant: watch tenants and bindings, bind `admin` for the owners (owned by the tenant), report status. */
async function reconcileTenant(
  plane: ControlPlane,
  id: Identity,
  tenant: any,
  ns: string,
  name: string,
): Promise<{ step: string; code: number; message?: string }> {
  const as = { identity: id };
  const steps: Array<[string, () => Promise<{ code: number; body: any }>]> = [
    ['list tenants', () => plane.request('GET', TENANTS, undefined, as)],
    ['watch tenants', () => plane.request('GET', `${TENANTS}?watch=true&timeoutSeconds=1`, undefined, as)],
    ['list rolebindings', () => plane.request('GET', `${RBAC}/rolebindings`, undefined, as)],
    [
      'bind admin',
      () =>
        plane.request(
          'POST',
          `${RBAC}/namespaces/${ns}/rolebindings`,
          {
            metadata: {
              name,
              ownerReferences: [
                {
                  apiVersion: 'tenancy.example.com/v1',
                  kind: 'Tenant',
                  name: tenant.metadata.name,
                  uid: tenant.metadata.uid,
                  controller: true,
                  blockOwnerDeletion: true,
                },
              ],
            },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
            subjects: tenant.spec.owners.map((o: string) => ({
              kind: 'User',
              apiGroup: 'rbac.authorization.k8s.io',
              name: o,
            })),
          },
          as,
        ),
    ],
    [
      'update the binding',
      () =>
        plane.request(
          'PATCH',
          `${RBAC}/namespaces/${ns}/rolebindings/${name}`,
          { metadata: { labels: { reconciled: 'yes' } } },
          { ...as, contentType: 'application/merge-patch+json' },
        ),
    ],
    [
      'status',
      () =>
        plane.request(
          'PATCH',
          `${TENANTS}/${tenant.metadata.name}/status`,
          { status: { bound: 1 } },
          { ...as, contentType: 'application/merge-patch+json' },
        ),
    ],
    [
      'delete the binding',
      () => plane.request('DELETE', `${RBAC}/namespaces/${ns}/rolebindings/${name}`, undefined, as),
    ],
  ];
  for (const [step, run] of steps) {
    const r = await run();
    if (r.code >= 300) return { step, code: r.code, message: r.body?.message ?? String(r.body) };
  }
  return { step: 'done', code: 200 };
}

describeEachApiServerVersion(
  'contract.binds: derived rules are enough to bind admin, and none is spare',
  (plane) => {
    let objects: any[];
    let id: Identity;
    let tenant: any;
    let ns: string;
    beforeAll(async () => {
      objects = chartObjects();
      await plane().applyObjects(objects);
      id = await plane().operatorIdentity(objects);
      ns = await plane().createNamespace('tenant-a-');
      const created = await plane().request('POST', TENANTS, {
        apiVersion: 'tenancy.example.com/v1',
        kind: 'Tenant',
        metadata: { name: 'a' },
        spec: { owners: ['alice'] },
      });
      expect(created.code).toBe(201);
      tenant = created.body;
    }, 120_000);

    test('role aggregation runs: admin holds rules the operator does not', async () => {
      expect(plane().controllers).toContain('clusterrole-aggregation-controller');
      const admin = await plane().request('GET', `${RBAC}/clusterroles/admin`);
      expect(admin.body.rules.length).toBeGreaterThan(10);
      const canI = await plane().request(
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        { spec: { resourceAttributes: { namespace: ns, verb: 'create', resource: 'pods' } } },
        { identity: id },
      );
      expect(canI.body.status.allowed).toBe(false);
    });

    test("under its ServiceAccount, with exactly the chart's rules, the operator binds admin for the owners", async () => {
      expect(await reconcileTenant(plane(), id, tenant, ns, 'owners-admin')).toEqual({ step: 'done', code: 200 });
    });

    test("without any one of the manager ClusterRole's rules, a step gets 403; without bind, the escalation check refuses", async () => {
      const manager = objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'tenant-operator-manager');
      const path = `${RBAC}/clusterroles/${manager.metadata.name}`;
      const rules: any[] = manager.rules;
      expect(rules.length).toBeGreaterThanOrEqual(4);
      const failures: Array<{ rule: string; step: string; code: number; message?: string }> = [];
      try {
        for (let i = 0; i < rules.length; i++) {
          const without = rules.filter((_, j) => j !== i);
          expect((await plane().request('PUT', path, { ...manager, rules: without })).code).toBe(200);
          // the authorizer's cache follows the change within moments: wait until it denies the removed rule's first verb
          const removed = rules[i];
          const [group, resource] = [removed.apiGroups[0], removed.resources[0].split('/')];
          await until(
            `the authorizer to see rules[${i}] removed`,
            async () => {
              const review = await plane().request(
                'POST',
                '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
                {
                  spec: {
                    resourceAttributes: {
                      group,
                      resource: resource[0],
                      subresource: resource[1],
                      verb: removed.verbs[0],
                      name: removed.resourceNames?.[0],
                      namespace: resource[0] === 'rolebindings' ? ns : undefined,
                    },
                  },
                },
                { identity: id },
              );
              return review.body.status.allowed === false;
            },
            15_000,
            100,
          );
          const failed = await reconcileTenant(plane(), id, tenant, ns, `without-${i}`);
          await plane().request('DELETE', `${RBAC}/namespaces/${ns}/rolebindings/without-${i}`);
          failures.push({
            rule: `${rules[i].resources.join(',')}${rules[i].resourceNames ? `/${rules[i].resourceNames.join(',')}` : ''} ${rules[i].verbs.join(',')}`,
            ...failed,
          });
        }
      } finally {
        await plane().request('PUT', path, manager);
      }
      expect(failures.map((f) => [f.rule, f.step]).sort()).toEqual([
        ['clusterroles/admin bind', 'bind admin'],
        ['rolebindings get,list,watch,create,update,patch,delete', 'list rolebindings'],
        ['tenants get,list,watch', 'list tenants'],
        ['tenants/finalizers update', 'bind admin'],
        ['tenants/status get,update,patch', 'status'],
      ]);
      expect(failures.find((f) => f.rule === 'clusterroles/admin bind')!.message).toContain(
        'is attempting to grant RBAC permissions not currently held',
      );
      // and with every rule back, the job succeeds again
      await until(
        'the job to succeed again',
        async () => (await reconcileTenant(plane(), id, tenant, ns, 'again')).code === 200,
        15_000,
        200,
      );
    }, 180_000);
  },
  {
    controllerManager: undefined,
    apiServerFlags: ['--enable-admission-plugins=OwnerReferencesPermissionEnforcement'],
    shared: true,
  },
);
