/**
 * The controllers that make a control plane answer like a cluster where an operator's tests look (role aggregation,
 * the garbage collector, namespace lifecycle) run by default, and `applyObjects` applies every kind the library
 * emits. Each claim is checked against what the real apiserver answers, and its opposite without the controllers.
 */
import { describeRealApiServer } from '.';
import { CLUSTER_CONTROLLERS, ControlPlane } from '../../runtime/envtest';
import { until } from '../runtime/support';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/** A ServiceAccount that may create RoleBindings in `ns` and nothing else; binds the built-in `admin` ClusterRole there. */
async function bindAdminAsDelegate(plane: ControlPlane, ns: string): Promise<{ code: number; message?: string }> {
  const id = await plane.serviceAccount(ns, 'delegate');
  await plane.request('POST', `${RBAC}/namespaces/${ns}/roles`, {
    metadata: { name: 'binder' },
    rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings'], verbs: ['create'] }],
  });
  await plane.request('POST', `${RBAC}/namespaces/${ns}/rolebindings`, {
    metadata: { name: 'binder' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'binder' },
    subjects: [{ kind: 'ServiceAccount', name: 'delegate', namespace: ns }],
  });
  // the authorizer's cache sees the new binding within moments (seconds on a loaded machine)
  await until(
    'the delegate may create rolebindings',
    async () =>
      (
        await plane.request(
          'POST',
          '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
          {
            spec: {
              resourceAttributes: {
                group: 'rbac.authorization.k8s.io',
                resource: 'rolebindings',
                verb: 'create',
                namespace: ns,
              },
            },
          },
          { identity: id },
        )
      ).body.status.allowed === true,
    20_000,
    100,
  );
  const r = await plane.request(
    'POST',
    `${RBAC}/namespaces/${ns}/rolebindings`,
    {
      metadata: { name: 'owners-admin' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
      subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
    },
    { identity: id },
  );
  return { code: r.code, message: r.body?.message };
}

const gadgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.behaviour.example.com' },
  spec: {
    group: 'behaviour.example.com',
    scope: 'Namespaced',
    names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            required: ['spec'],
            properties: { spec: { type: 'object', required: ['size'], properties: { size: { type: 'integer' } } } },
          },
        },
      },
    ],
  },
};

describeRealApiServer(
  'envtest by default: role aggregation, garbage collection, namespace lifecycle',
  (plane) => {
    test('the default (ControlPlane.start() without controllerManager) runs exactly the cluster controllers', () => {
      expect(plane().controllers).toEqual([
        'clusterrole-aggregation-controller',
        'garbage-collector-controller',
        'namespace-controller',
        'resourcequota-controller',
      ]);
      expect(plane().controllers).toEqual(CLUSTER_CONTROLLERS);
    });

    test('built-in admin is aggregated when start() resolves: binding it without holding its rules is refused as on a cluster', async () => {
      const admin = await plane().request('GET', `${RBAC}/clusterroles/admin`);
      expect(admin.body.rules).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ resources: expect.arrayContaining(['rolebindings', 'roles']) }),
        ]),
      );
      const ns = await plane().createNamespace('aggregate-');
      const bound = await bindAdminAsDelegate(plane(), ns);
      expect(bound.code).toBe(403);
      expect(bound.message).toContain('is attempting to grant RBAC permissions not currently held');
    });

    test('a CRD installed after start is known to the garbage collector: a foreground deletion finishes and takes the dependent', async () => {
      await plane().installCrds([gadgetCrd]);
      const ns = await plane().createNamespace('gc-');
      const owner = await plane().request('POST', `/apis/behaviour.example.com/v1/namespaces/${ns}/gadgets`, {
        apiVersion: 'behaviour.example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'g' },
        spec: { size: 1 },
      });
      expect(owner.code).toBe(201);
      const dependent = await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        metadata: {
          name: 'child',
          ownerReferences: [
            {
              apiVersion: 'behaviour.example.com/v1',
              kind: 'Gadget',
              name: 'g',
              uid: owner.body.metadata.uid,
              blockOwnerDeletion: true,
            },
          ],
        },
      });
      expect(dependent.code).toBe(201);
      const deleting = await plane().request('DELETE', `/apis/behaviour.example.com/v1/namespaces/${ns}/gadgets/g`, {
        propagationPolicy: 'Foreground',
      });
      expect(deleting.body.metadata.finalizers).toEqual(['foregroundDeletion']);
      // no controller but the garbage collector removes the foregroundDeletion finalizer, once it watches Gadgets
      await until(
        'the Gadget gone',
        async () =>
          (await plane().request('GET', `/apis/behaviour.example.com/v1/namespaces/${ns}/gadgets/g`)).code === 404,
        20_000,
        100,
      );
      expect((await plane().request('GET', `/api/v1/namespaces/${ns}/configmaps/child`)).code).toBe(404);
    }, 60_000);

    test('a deleted namespace is emptied and removed', async () => {
      const ns = await plane().createNamespace('lifecycle-');
      await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'inside' } });
      await plane().request('DELETE', `/api/v1/namespaces/${ns}`);
      await until(
        'the namespace gone',
        async () => (await plane().request('GET', `/api/v1/namespaces/${ns}`)).code === 404,
        30_000,
        100,
      );
    }, 60_000);

    test('applyObjects applies a ValidatingAdmissionPolicy and its binding (kinds outside the built-in table, from discovery), and the policy holds', async () => {
      const ns = await plane().createNamespace('vap-');
      await plane().applyObjects([
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicy',
          metadata: { name: `no-big-${ns}` },
          spec: {
            failurePolicy: 'Fail',
            matchConstraints: {
              resourceRules: [
                { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] },
              ],
            },
            validations: [{ expression: "!has(object.data) || !('big' in object.data)", message: 'no big' }],
          },
        },
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicyBinding',
          metadata: { name: `no-big-${ns}` },
          spec: {
            policyName: `no-big-${ns}`,
            validationActions: ['Deny'],
            matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } },
          },
        },
      ]);
      // the policy takes effect once the apiserver's policy informer has it
      const refused = await until(
        'the policy enforced',
        async () => {
          const r = await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
            metadata: { generateName: 'c-' },
            data: { big: 'x' },
          });
          return r.code === 422 && r.body.message;
        },
        20_000,
        200,
      );
      expect(refused).toContain(
        `ValidatingAdmissionPolicy 'no-big-${ns}' with binding 'no-big-${ns}' denied request: no big`,
      );
      await expect(
        plane().applyObjects([{ apiVersion: 'example.com/v1', kind: 'Nothing', metadata: { name: 'x' } }]),
      ).rejects.toThrow(
        'example.com/v1 Nothing x: unknown kind (neither built in, nor a CRD among the objects, nor served by the apiserver)',
      );
    }, 60_000);
  },
  { shared: true, controllerManager: undefined },
); // the library's default: CLUSTER_CONTROLLERS

describeRealApiServer(
  'envtest with controllerManager: false (a bare apiserver)',
  (plane) => {
    test('admin is empty, so binding it needs nothing: the false green the default avoids', async () => {
      expect(plane().hasControllerManager).toBe(false);
      expect((await plane().request('GET', `${RBAC}/clusterroles/admin`)).body.rules).toBeNull();
      const ns = await plane().createNamespace('bare-');
      expect((await bindAdminAsDelegate(plane(), ns)).code).toBe(201);
    });
  },
  { shared: true, controllerManager: false },
);
