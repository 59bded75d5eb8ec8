import { CLUSTERROLE } from '../../runtime/builtins';
import { RestClient } from '../../runtime/client';
import { ApiError, TerminalError } from '../../runtime/errors';
import { EventRecorder } from '../../runtime/events';
import { MAX_REASON_MESSAGE, reconcileErrorReason, recordReconcileError } from '../../runtime/reconcile-error';
import { describeRealApiServer } from '../envtest';

const TENANT = { apiVersion: 'tenancy.example.com/v1', kind: 'Tenant', plural: 'tenants' };
const tenantCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'tenants.tenancy.example.com' },
  spec: {
    group: 'tenancy.example.com',
    scope: 'Cluster',
    names: { kind: 'Tenant', plural: 'tenants', singular: 'tenant', listKind: 'TenantList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

describe('reconcileErrorReason', () => {
  test('an apiserver error keeps its reason; a terminal error is Terminal; anything else ReconcileError; long text is cut with a count', () => {
    expect(
      reconcileErrorReason(new ApiError(422, 'POST', '/x', { reason: 'Invalid', message: 'spec.x: Invalid value' })),
    ).toStrictEqual({ reason: 'Invalid', message: 'POST /x: spec.x: Invalid value' });
    expect(reconcileErrorReason(new ApiError(500, 'GET', '/x', { message: 'boom' })).reason).toBe('HTTP500');
    expect(reconcileErrorReason(new TerminalError('spec.size: too big'))).toStrictEqual({
      reason: 'Terminal',
      message: 'spec.size: too big',
    });
    const long = reconcileErrorReason(new Error(`${'a'.repeat(600)}\n${'b'.repeat(9000)}`));
    expect(long.message).toBe(
      `${'a'.repeat(MAX_REASON_MESSAGE)} … (${600 - MAX_REASON_MESSAGE + 1 + 9000} more characters)`,
    );
  });
});

describeRealApiServer(
  'recordReconcileError',
  (plane) => {
    let admin: RestClient;
    let operator: RestClient;

    afterEach(() => {
      admin?.close();
      operator?.close();
    });

    test('a real RBAC escalation 403 becomes Ready=False reason Forbidden (trimmed) and one Warning event; the same error again writes nothing', async () => {
      admin = RestClient.fromKubeConfig(plane().kubeConfig());
      // the operator may create ClusterRoles and write its Tenants' status and events, but holds none of the
      // permissions its ClusterRole grants, so the apiserver refuses with its multi-kilobyte escalation message
      const ns = await plane().createNamespace('tenant-operator');
      await admin.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'tenant-operator' },
        rules: [
          { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['create'] },
          { apiGroups: ['tenancy.example.com'], resources: ['tenants/status'], verbs: ['patch'] },
          { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
        ],
      });
      await admin.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'tenant-operator' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'tenant-operator' },
        subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace: ns }],
      });
      operator = RestClient.fromKubeConfig(plane().kubeConfig(await plane().serviceAccount(ns, 'operator')));
      const tenant = await admin.create({
        apiVersion: TENANT.apiVersion,
        kind: 'Tenant',
        metadata: { name: 'acme' },
        spec: { owners: ['alice'] },
      });

      const rules = Array.from({ length: 40 }, (_, i) => ({
        apiGroups: [`g${i}.example.com`],
        resources: ['widgets', 'gadgets'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'],
      }));
      const err = await operator
        .create({ apiVersion: CLUSTERROLE.apiVersion, kind: 'ClusterRole', metadata: { name: 'tenant-acme' }, rules })
        .catch((e) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe(403);
      const full = (err as ApiError).status!.message!;
      expect(full).toContain('attempting to grant RBAC permissions not currently held');
      expect(full.length).toBeGreaterThan(2000);

      const recorder = new EventRecorder({
        client: operator,
        reportingController: 'tenancy.example.com/tenant-operator',
        reportingInstance: 'test',
      });
      const first = await recordReconcileError(operator, recorder, tenant, err, { resource: TENANT });
      expect(first).toMatchObject({ reason: 'Forbidden', changed: true });
      expect(first.statusError).toBeUndefined();
      expect(first.message.length).toBeLessThan(MAX_REASON_MESSAGE + 100);
      expect(first.message).toMatch(
        /^POST \/apis\/rbac\.authorization\.k8s\.io\/v1\/clusterroles: clusterroles\.rbac\.authorization\.k8s\.io "tenant-acme" is forbidden: user "system:serviceaccount:tenant-operator:operator" .* is attempting to grant RBAC permissions not currently held/,
      );
      expect(first.message).toMatch(/ … \(\d+ more characters\)$/);

      const live = await admin.get(TENANT, 'acme');
      const ready = (live.status as any).conditions.find((c: any) => c.type === 'Ready');
      expect(ready).toMatchObject({
        status: 'False',
        reason: 'Forbidden',
        message: first.message,
        observedGeneration: 1,
      });
      const events = await admin.list(
        { apiVersion: 'events.k8s.io/v1', kind: 'Event', plural: 'events' },
        { namespace: 'default' },
      );
      const ours = events.items.filter((e: any) => e.regarding?.name === 'acme');
      expect(ours.map((e: any) => [e.type, e.reason, e.note])).toStrictEqual([['Warning', 'Forbidden', first.message]]);

      // the retry fails the same way: no status write, no event (the resourceVersion does not move)
      const again = await recordReconcileError(operator, recorder, live, err, { resource: TENANT });
      expect(again.changed).toBe(false);
      expect((await admin.get(TENANT, 'acme')).metadata!.resourceVersion).toBe(live.metadata!.resourceVersion);
      const eventsAfter = await admin.list(
        { apiVersion: 'events.k8s.io/v1', kind: 'Event', plural: 'events' },
        { namespace: 'default' },
      );
      expect(
        eventsAfter.items.filter((e: any) => e.regarding?.name === 'acme').map((e: any) => e.series?.count),
      ).toStrictEqual([undefined]);
    });
  },
  { shared: true, crds: [tenantCrd] },
);
