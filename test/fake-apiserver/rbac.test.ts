import { FakeApiServer, loadClientNode, startFakeApiServer } from '.';
import { sampleDbCrd } from './fixtures';
import { http } from './http';

const BASE = '/apis/db.example.com/v1/namespaces/default/sampledbs';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

describe('optional RBAC (rbac: true)', () => {
  let s: FakeApiServer;
  let token: string;
  const as = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    http(s.url, method, path, body, { Authorization: `Bearer ${token}`, ...headers });
  const admin = (method: string, path: string, body?: unknown) => http(s.url, method, path, body, { Authorization: `Bearer ${s.adminToken}` });

  beforeEach(async () => {
    s = await startFakeApiServer({ crds: [sampleDbCrd()], rbac: true });
    s.put({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'op', namespace: 'default' } });
    token = s.tokenFor('default', 'op');
  });
  afterEach(async () => {
    await s.close();
  });

  test('a ServiceAccount without bindings is forbidden, worded like the RBAC authorizer', async () => {
    const r = await as('GET', BASE);
    expect(r.code).toBe(403);
    expect(r.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'sampledbs.db.example.com is forbidden: User "system:serviceaccount:default:op" cannot list resource "sampledbs" in API group "db.example.com" in the namespace "default"',
      details: { group: 'db.example.com', kind: 'sampledbs' },
    });
    const ns = await as('GET', '/api/v1/namespaces/kube-system');
    expect(ns.body.message).toBe('namespaces "kube-system" is forbidden: User "system:serviceaccount:default:op" cannot get resource "namespaces" in API group "" at the cluster scope');
    expect(s.requests.map((q) => `${q.user} ${q.verb} ${q.code}`)).toEqual(['system:serviceaccount:default:op list 403', 'system:serviceaccount:default:op get 403']);
  });

  test('Role + RoleBinding grant exactly their verbs, resources, subresources and names', async () => {
    await admin('POST', `${RBAC}/namespaces/default/roles`, {
      metadata: { name: 'op' },
      rules: [
        { apiGroups: ['db.example.com'], resources: ['sampledbs'], verbs: ['get', 'list', 'watch', 'create'] },
        { apiGroups: ['db.example.com'], resources: ['sampledbs/status'], verbs: ['update', 'patch'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: ['allowed'] },
      ],
    });
    await admin('POST', `${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: 'op' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'op' },
      subjects: [{ kind: 'ServiceAccount', name: 'op', namespace: 'default' }],
    });
    expect((await as('GET', BASE)).code).toBe(200);
    const created = await as('POST', BASE, { apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name: 'a' }, spec: {} });
    expect(created.code).toBe(201);
    const spec = await as('PATCH', `${BASE}/a`, { spec: { replicas: 2 } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(spec.code).toBe(403);
    expect(spec.body.message).toContain('cannot patch resource "sampledbs" in API group "db.example.com"');
    const status = await as('PATCH', `${BASE}/a/status`, { status: { replicas: 1 } }, { 'Content-Type': 'application/merge-patch+json' });
    expect(status.code).toBe(200);
    expect((await as('GET', '/apis/db.example.com/v1/namespaces/other/sampledbs')).code).toBe(403); // a Role is namespaced
    await admin('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'allowed' } });
    await admin('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'secret-ish' } });
    expect((await as('GET', '/api/v1/namespaces/default/configmaps/allowed')).code).toBe(200);
    expect((await as('GET', '/api/v1/namespaces/default/configmaps/secret-ish')).code).toBe(403);
    expect((await as('GET', '/api/v1/namespaces/default/configmaps')).code).toBe(403); // resourceNames never cover list
  });

  test('ClusterRoleBinding to a group; discovery and health for authenticated users; 401 for unknown tokens', async () => {
    await admin('POST', `${RBAC}/clusterroles`, { metadata: { name: 'ns-reader' }, rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['list'] }] });
    await admin('POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'ns-reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ns-reader' },
      subjects: [{ kind: 'Group', name: 'system:serviceaccounts:default', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    expect((await as('GET', '/api/v1/namespaces')).code).toBe(200);
    expect((await as('GET', '/apis')).code).toBe(200);
    const bogus = await http(s.url, 'GET', '/apis', undefined, { Authorization: 'Bearer nope' });
    expect([bogus.code, bogus.body.reason]).toEqual([401, 'Unauthorized']);
    const anonymous = await http(s.url, 'GET', '/apis');
    expect(anonymous.code).toBe(403);
    expect((await http(s.url, 'GET', '/healthz')).code).toBe(200);
  });

  test('TokenRequest API and token invalidation when the ServiceAccount is deleted', async () => {
    const k8s = loadClientNode();
    const core = s.kubeConfig().makeApiClient(k8s.CoreV1Api);
    const tr = await core.createNamespacedServiceAccountToken({ name: 'op', namespace: 'default', body: { spec: { audiences: ['x'] } } as any });
    const saToken = tr.status!.token;
    const asSa = s.kubeConfig({ token: saToken }).makeApiClient(k8s.CoreV1Api);
    const denied: any = await asSa.listNamespacedConfigMap({ namespace: 'default' }).catch((e: unknown) => e);
    expect(denied.code).toBe(403);
    await core.deleteNamespacedServiceAccount({ name: 'op', namespace: 'default' });
    const gone: any = await asSa.listNamespacedConfigMap({ namespace: 'default' }).catch((e: unknown) => e);
    expect(gone.code).toBe(401);
    const missing: any = await core.createNamespacedServiceAccountToken({ name: 'nobody', namespace: 'default', body: { spec: {} } as any }).catch((e: unknown) => e);
    expect(missing.code).toBe(404);
  });

  test('impersonation and access reviews (what kubectl --as and kubectl auth can-i use)', async () => {
    await admin('POST', `${RBAC}/namespaces/default/roles`, { metadata: { name: 'reader' }, rules: [{ apiGroups: ['db.example.com'], resources: ['sampledbs'], verbs: ['list'] }] });
    await admin('POST', `${RBAC}/namespaces/default/rolebindings`, {
      metadata: { name: 'reader' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'op', namespace: 'default' }],
    });
    const sa = 'system:serviceaccount:default:op';
    const impersonated = await http(s.url, 'GET', BASE, undefined, { 'Authorization': `Bearer ${s.adminToken}`, 'Impersonate-User': sa });
    expect(impersonated.code).toBe(200);
    const notAllowed = await as('GET', BASE, undefined, { 'Impersonate-User': 'someone' });
    expect(notAllowed.code).toBe(403);
    const review = await admin('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview',
      spec: { user: sa, resourceAttributes: { namespace: 'default', verb: 'list', group: 'db.example.com', resource: 'sampledbs' } },
    });
    expect(review.code).toBe(201);
    expect(review.body.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "reader/default" of Role "reader" to ServiceAccount "op/default"' });
    const self = await as('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: 'default', verb: 'delete', group: 'db.example.com', resource: 'sampledbs' } },
    });
    expect(self.body.status.allowed).toBe(false);
  });

  test('without rbac every token is admin', async () => {
    const open = await startFakeApiServer({ crds: [sampleDbCrd()] });
    try {
      expect((await http(open.url, 'GET', BASE, undefined, { Authorization: 'Bearer anything' })).code).toBe(200);
      expect((await http(open.url, 'GET', BASE)).code).toBe(200);
    } finally {
      await open.close();
    }
  });
});
