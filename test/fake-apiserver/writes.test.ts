import { FakeApiServer, startFakeApiServer } from '.';
import { sampleDbCrd } from './fixtures';
import { http, openWatch } from './http';

const BASE = '/apis/db.example.com/v1/namespaces/default/sampledbs';
const sdb = (name: string, spec: any = {}, extra: any = {}) => ({ apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name, ...extra }, spec });

describe('fake apiserver: writes', () => {
  let s: FakeApiServer;
  beforeEach(async () => {
    s = await startFakeApiServer({ crds: [sampleDbCrd()], bookmarkIntervalMs: 50 });
  });
  afterEach(async () => {
    await s.close();
  });

  describe('writes', () => {
    test('generateName, dryRun and PUT without resourceVersion on a custom resource', async () => {
      const gen = await http(s.url, 'POST', BASE, { ...sdb(''), metadata: { generateName: 'db-' } });
      expect(gen.code).toBe(201);
      expect(gen.body.metadata.name).toMatch(/^db-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      const dry = await http(s.url, 'POST', `${BASE}?dryRun=All`, sdb('dry'));
      expect(dry.code).toBe(201);
      expect((await http(s.url, 'GET', `${BASE}/dry`)).code).toBe(404);
      const noRv = await http(s.url, 'PUT', `${BASE}/${gen.body.metadata.name}`, { ...sdb(gen.body.metadata.name, { replicas: 2 }) });
      expect(noRv.code).toBe(422);
      expect(noRv.body.details.causes[0].field).toBe('metadata.resourceVersion');
    });

    test('names: Services must be DNS-1035 labels, Namespaces DNS-1123 labels, others DNS-1123 subdomains', async () => {
      const svc = await http(s.url, 'POST', '/api/v1/namespaces/default/services', { metadata: { name: '1db' }, spec: { ports: [{ port: 80 }] } });
      expect(svc.code).toBe(422);
      expect(svc.body.message).toContain('metadata.name: Invalid value: "1db": a DNS-1035 label must consist of lower case alphanumeric characters');
      expect((await http(s.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'a.b' } })).code).toBe(422);
      expect((await http(s.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'a.b' } })).code).toBe(201);
      const upper = await http(s.url, 'POST', BASE, sdb('Bad_Name'));
      expect(upper.body.details.causes[0].message).toContain('a lowercase RFC 1123 subdomain must consist of');
    });

    test('a no-op update keeps the resourceVersion and emits no event', async () => {
      const a = (await http(s.url, 'POST', BASE, sdb('a', { replicas: 2 }))).body;
      const w = await openWatch(s.url, `${BASE}?watch=true&resourceVersion=${a.metadata.resourceVersion}&timeoutSeconds=1`);
      const same = await http(s.url, 'PUT', `${BASE}/a`, a);
      expect(same.body.metadata.resourceVersion).toBe(a.metadata.resourceVersion);
      const patched = await http(s.url, 'PATCH', `${BASE}/a`, { spec: { replicas: 2 } }, { 'Content-Type': 'application/merge-patch+json' });
      expect(patched.body.metadata.resourceVersion).toBe(a.metadata.resourceVersion);
      expect(await w.ended).toBe('clean');
      expect(w.events).toEqual([]);
    });

    test('fieldValidation=Ignore prunes silently; Strict rejects', async () => {
      const ignore = await http(s.url, 'POST', `${BASE}?fieldValidation=Ignore`, sdb('i', { bogus: 1 }));
      expect(ignore.code).toBe(201);
      expect(ignore.headers.get('warning')).toBeNull();
      expect(ignore.body.spec).toEqual({ replicas: 1 });
      expect((await http(s.url, 'POST', `${BASE}?fieldValidation=Strict`, sdb('j', { bogus: 1 }))).code).toBe(400);
    });

    test('json-patch with a passing test op applies; finalizer removal guarded by test', async () => {
      const a = (await http(s.url, 'POST', BASE, sdb('a', {}, { finalizers: ['x/y', 'mine/z'] }))).body;
      const ops = [{ op: 'test', path: '/metadata/finalizers/1', value: 'mine/z' }, { op: 'remove', path: '/metadata/finalizers/1' }];
      const ok = await http(s.url, 'PATCH', `${BASE}/a`, ops, { 'Content-Type': 'application/json-patch+json' });
      expect(ok.code).toBe(200);
      expect(ok.body.metadata.finalizers).toEqual(['x/y']);
      const again = await http(s.url, 'PATCH', `${BASE}/a`, ops, { 'Content-Type': 'application/json-patch+json' });
      expect(again.code).toBe(422);
      expect(Number(ok.body.metadata.resourceVersion)).toBeGreaterThan(Number(a.metadata.resourceVersion));
    });

    test('server-side apply: conflicts between managers are 409 unless forced; dropped fields are removed', async () => {
      const apply = (manager: string, body: any, force = false) => http(s.url, 'PATCH', `${BASE}/a?fieldManager=${manager}${force ? '&force=true' : ''}`, body,
        { 'Content-Type': 'application/apply-patch+yaml' });
      expect((await apply('one', sdb('a', { replicas: 2, version: '15' }))).code).toBe(201);
      const clash = await apply('two', sdb('a', { replicas: 3 }));
      expect(clash.code).toBe(409);
      expect(clash.body.reason).toBe('Conflict');
      expect(clash.body.message).toBe('Apply failed with 1 conflict: conflict with "one" using db.example.com/v1: .spec.replicas');
      expect((await apply('two', sdb('a', { replicas: 2 }))).code).toBe(200); // same value: shared ownership, no conflict
      const forced = await apply('two', sdb('a', { replicas: 4 }), true);
      expect(forced.code).toBe(200);
      expect(forced.body.spec.replicas).toBe(4);
      const one = forced.body.metadata.managedFields.find((m: any) => m.manager === 'one');
      expect(one.fieldsV1).toEqual({ 'f:spec': { 'f:version': {} } });
      // manager one stops applying version: it is removed (nobody else owns it)
      const dropped = await apply('one', sdb('a', {}));
      expect(dropped.body.spec).toEqual({ replicas: 4 });
      // YAML bodies work too
      const yaml = await http(s.url, 'PATCH', `${BASE}/a?fieldManager=three`, 'apiVersion: db.example.com/v1\nkind: SampleDB\nmetadata: {name: a}\nspec: {version: "17"}\n',
        { 'Content-Type': 'application/apply-patch+yaml' });
      expect(yaml.body.spec).toEqual({ replicas: 4, version: '17' });
      expect((await http(s.url, 'PATCH', `${BASE}/a`, sdb('a'), { 'Content-Type': 'application/apply-patch+yaml' })).code).toBe(400);
    });

    test('metadata validation: label values, finalizer names, owner references; warning for unqualified finalizers', async () => {
      const badLabel = await http(s.url, 'POST', BASE, sdb('a', {}, { labels: { app: 'bad value!' } }));
      expect(badLabel.code).toBe(422);
      expect(badLabel.body.details.causes[0].field).toBe('metadata.labels');
      expect(badLabel.body.message).toContain('metadata.labels: Invalid value: "bad value!": a valid label must be an empty string');
      const twoControllers = await http(s.url, 'POST', BASE, sdb('b', {}, {
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: '1', controller: true }, { apiVersion: 'v1', kind: 'Secret', name: 'y', uid: '2', controller: true }],
      }));
      expect(twoControllers.code).toBe(422);
      expect(twoControllers.body.message).toContain('Only one reference can have Controller set to true');
      const plain = await http(s.url, 'POST', BASE, sdb('c', {}, { finalizers: ['cleanup'] }));
      expect(plain.code).toBe(201);
      expect(plain.headers.get('warning')).toBe('299 - "metadata.finalizers: \\"cleanup\\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"');
      const qualified = await http(s.url, 'POST', BASE, sdb('d', {}, { finalizers: ['example.com/cleanup'] }));
      expect(qualified.headers.get('warning')).toBeNull();
    });

    test('managedFields: omitted keeps tracking, explicit entries replace them, [{}] resets them', async () => {
      const a = (await http(s.url, 'POST', BASE, sdb('a', { replicas: 2 }))).body;
      const { managedFields, ...meta } = a.metadata;
      const withoutMf = await http(s.url, 'PUT', `${BASE}/a`, { ...a, metadata: meta, spec: { replicas: 3 } });
      expect(withoutMf.body.metadata.managedFields.map((m: any) => m.manager)).toEqual(['fake-apiserver-test']);
      const renamed = [{ ...managedFields[0], manager: 'renamed' }];
      const replaced = await http(s.url, 'PATCH', `${BASE}/a`, [{ op: 'replace', path: '/metadata/managedFields', value: renamed }], { 'Content-Type': 'application/json-patch+json' });
      expect(replaced.body.metadata.managedFields.map((m: any) => m.manager)).toEqual(['renamed']);
      const reset = await http(s.url, 'PATCH', `${BASE}/a`, { metadata: { managedFields: [{}] } }, { 'Content-Type': 'application/merge-patch+json' });
      expect(reset.body.metadata.managedFields).toBeUndefined();
    });

    test('typed decoding errors of built-ins: non-string ConfigMap data and labels, non-base64 Secret data, string replicas', async () => {
      const cm = await http(s.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c' }, data: { port: 8080 } });
      expect([cm.code, cm.body.message]).toEqual([400, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string']);
      const label = await http(s.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c', labels: { enabled: true } } });
      expect(label.body.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string');
      const secret = await http(s.url, 'POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 's' }, data: { password: 'hunter2!' } });
      expect([secret.code, secret.body.message]).toEqual([400, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 7']);
      expect((await http(s.url, 'POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 's' }, data: { password: 'aHVudGVyMg==' } })).code).toBe(201);
      const dep = await http(s.url, 'POST', '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'd' }, spec: { replicas: '2' } });
      expect(dep.body.message).toBe('Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32');
      // MicroTime needs six fractional digits: JavaScript's toISOString() is not enough
      const lease = await http(s.url, 'POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { metadata: { name: 'l' }, spec: { renewTime: '2026-11-22T03:00:00.123Z' } });
      expect([lease.code, lease.body.message]).toEqual([400,
        'Lease in version "v1" cannot be handled as a Lease: parsing time "2026-11-22T03:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"']);
      expect((await http(s.url, 'POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { metadata: { name: 'l' }, spec: { renewTime: '2026-11-22T03:00:00.123456Z' } })).code).toBe(201);
    });

    test('strategic merge patch is accepted for built-ins', async () => {
      await http(s.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'cm' }, data: { a: '1' } });
      const r = await http(s.url, 'PATCH', '/api/v1/namespaces/default/configmaps/cm', { data: { b: '2' } }, { 'Content-Type': 'application/strategic-merge-patch+json' });
      expect(r.code).toBe(200);
      expect(r.body.data).toEqual({ a: '1', b: '2' });
    });
  });

  describe('built-in update rules', () => {
    const tpl = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } };
    test('immutable selectors and templates, PVC spec, RoleBinding roleRef, immutable ConfigMaps', async () => {
      const dep = (await http(s.url, 'POST', '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'a' } }, template: tpl } })).body;
      const moved = await http(s.url, 'PUT', '/apis/apps/v1/namespaces/default/deployments/d',
        { ...dep, spec: { ...dep.spec, selector: { matchLabels: { app: 'b' } }, template: { ...tpl, metadata: { labels: { app: 'b' } } } } });
      expect(moved.code).toBe(422);
      expect(moved.body.details.causes.map((c: any) => c.field)).toEqual(['spec.selector']);
      const job = (await http(s.url, 'POST', '/apis/batch/v1/namespaces/default/jobs', { metadata: { name: 'j' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x:1' }] } } } })).body;
      expect(job.spec.selector.matchLabels['batch.kubernetes.io/controller-uid']).toBe(job.metadata.uid);
      const changed = await http(s.url, 'PUT', '/apis/batch/v1/namespaces/default/jobs/j',
        { ...job, spec: { ...job.spec, template: { ...job.spec.template, spec: { ...job.spec.template.spec, containers: [{ name: 'c', image: 'x:2' }] } } } });
      expect(changed.code).toBe(422);
      expect(changed.body.details.causes.map((c: any) => c.field)).toContain('spec.template');
      await http(s.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'frozen' }, data: { a: '1' }, immutable: true });
      const cm = await http(s.url, 'PATCH', '/api/v1/namespaces/default/configmaps/frozen', { data: { a: '2' } }, { 'Content-Type': 'application/merge-patch+json' });
      expect(cm.code).toBe(422);
      expect(cm.body.message).toContain('data: Forbidden: field is immutable when `immutable` is set');
      const rb = (await http(s.url, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', { metadata: { name: 'rb' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r1' }, subjects: [] })).body;
      expect((await http(s.url, 'PUT', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/rb', { ...rb, roleRef: { ...rb.roleRef, name: 'r2' } })).code).toBe(422);
    });

    test('a Service PUT without clusterIP keeps the allocated one; changing it is rejected', async () => {
      const svc = (await http(s.url, 'POST', '/api/v1/namespaces/default/services', { metadata: { name: 's' }, spec: { selector: { app: 'a' }, ports: [{ port: 80 }] } })).body;
      expect(svc.spec.clusterIP).toMatch(/^10\.96\./);
      expect(svc.spec.ports[0]).toEqual({ port: 80, protocol: 'TCP', targetPort: 80 });
      const desired = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', resourceVersion: svc.metadata.resourceVersion }, spec: { selector: { app: 'b' }, ports: [{ port: 80 }] } };
      const put = await http(s.url, 'PUT', '/api/v1/namespaces/default/services/s', desired);
      expect(put.code).toBe(200);
      expect(put.body.spec.clusterIP).toBe(svc.spec.clusterIP);
      const moved = await http(s.url, 'PUT', '/api/v1/namespaces/default/services/s', { ...put.body, spec: { ...put.body.spec, clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'] } });
      expect(moved.code).toBe(422);
    });
  });

  describe('scale subresource', () => {
    test('GET/PUT/PATCH /scale map to spec.replicas and status.replicas', async () => {
      await http(s.url, 'POST', BASE, sdb('a', { replicas: 2 }));
      const scale = await http(s.url, 'GET', `${BASE}/a/scale`);
      expect(scale.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 2 }, status: { replicas: 0 } });
      const put = await http(s.url, 'PUT', `${BASE}/a/scale`, { ...scale.body, spec: { replicas: 5 } });
      expect(put.body.spec.replicas).toBe(5);
      const patched = await http(s.url, 'PATCH', `${BASE}/a/scale`, { spec: { replicas: 3 } }, { 'Content-Type': 'application/merge-patch+json' });
      expect(patched.body.spec.replicas).toBe(3);
      const obj = (await http(s.url, 'GET', `${BASE}/a`)).body;
      expect(obj.spec.replicas).toBe(3);
      expect(obj.metadata.generation).toBe(3);
      expect((await http(s.url, 'PUT', `${BASE}/a/scale`, { ...scale.body, spec: { replicas: 6 } })).code).toBe(409); // stale rv
      expect((await http(s.url, 'GET', '/api/v1/namespaces/default/configmaps/x/scale')).code).toBe(404);
    });
  });
});
