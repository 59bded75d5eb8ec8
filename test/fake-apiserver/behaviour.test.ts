import { FakeApiServer, startFakeApiServer, waitFor } from '.';
import { sampleDbCrd } from './fixtures';
import { http, openWatch } from './http';

const BASE = '/apis/db.example.com/v1/namespaces/default/sampledbs';
const sdb = (name: string, spec: any = {}, extra: any = {}) => ({ apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name, ...extra }, spec });

describe('fake apiserver behaviour', () => {
  let s: FakeApiServer;
  beforeEach(async () => {
    s = await startFakeApiServer({ crds: [sampleDbCrd()], bookmarkIntervalMs: 50 });
  });
  afterEach(async () => {
    await s.close();
  });

  describe('faults', () => {
    test('failNext answers 429 with Retry-After and a TooManyRequests Status, only for matching requests, count times', async () => {
      s.faults.failNext({ verb: 'list', resource: 'sampledbs', count: 2 }, 429, { retryAfterSeconds: 3 });
      expect((await http(s.url, 'GET', `${BASE}/x`)).code).toBe(404); // a get does not match
      const first = await http(s.url, 'GET', BASE);
      expect(first.code).toBe(429);
      expect(first.headers.get('retry-after')).toBe('3');
      expect(first.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429, details: { retryAfterSeconds: 3 } });
      expect((await http(s.url, 'GET', BASE)).code).toBe(429);
      expect((await http(s.url, 'GET', BASE)).code).toBe(200);
      expect(s.requests.filter((r) => r.verb === 'list').map((r) => r.code)).toEqual([429, 429, 200]);
    });

    test('failNext 500, 503 and 409 produce proper Status bodies', async () => {
      s.faults.failNext({ verb: 'create' }, 500);
      s.faults.failNext({ verb: 'create' }, 503, { retryAfterSeconds: 1 });
      s.faults.failNext({ verb: 'create' }, 409);
      const a = await http(s.url, 'POST', BASE, sdb('a'));
      const b = await http(s.url, 'POST', BASE, sdb('a'));
      const c = await http(s.url, 'POST', BASE, sdb('a'));
      expect([a.code, a.body.reason]).toEqual([500, 'InternalError']);
      expect([b.code, b.body.reason, b.headers.get('retry-after')]).toEqual([503, 'ServiceUnavailable', '1']);
      expect([c.code, c.body.reason]).toEqual([409, 'Conflict']);
      expect((await http(s.url, 'POST', BASE, sdb('a'))).code).toBe(201);
    });

    test('dropWatches ends open streams abruptly', async () => {
      const w = await openWatch(s.url, `${BASE}?watch=true`);
      await waitFor(() => s.openWatches === 1);
      s.faults.dropWatches();
      expect(await w.ended).toBe('aborted');
      expect(s.openWatches).toBe(0);
    });

    test('stallWatches holds back events and bookmarks, then delivers them', async () => {
      const w = await openWatch(s.url, `${BASE}?watch=true&allowWatchBookmarks=true&resourceVersion=${s.resourceVersion}`);
      s.faults.stallWatches(400);
      await http(s.url, 'POST', BASE, sdb('late'));
      await new Promise((r) => setTimeout(r, 250));
      expect(w.events).toEqual([]);
      await waitFor(() => w.events.some((e) => e.type === 'ADDED'));
      expect(w.events.find((e) => e.type === 'ADDED').object.metadata.name).toBe('late');
      w.close();
    });

    test('restart keeps data and resourceVersions, ends watches, refuses connections while down, returns on the same port', async () => {
      const created = (await http(s.url, 'POST', BASE, sdb('keep', { replicas: 2 }))).body;
      const w = await openWatch(s.url, `${BASE}?watch=true&resourceVersion=${s.resourceVersion}`);
      const url = s.url;
      const restarting = s.restart({ downMs: 300 });
      expect(await w.ended).toBe('aborted');
      await new Promise((r) => setTimeout(r, 100));
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
      await restarting;
      expect(s.url).toBe(url);
      const got = await http(s.url, 'GET', `${BASE}/keep`);
      expect(got.body.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      const next = await http(s.url, 'POST', BASE, sdb('after'));
      expect(Number(next.body.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
      // a watch can resume from before the restart
      const w2 = await openWatch(s.url, `${BASE}?watch=true&resourceVersion=${created.metadata.resourceVersion}&timeoutSeconds=1`);
      expect(await w2.ended).toBe('clean');
      expect(w2.events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED after']);
    });
  });

  describe('watch', () => {
    test('a resourceVersion older than the window answers 200 then an ERROR 410 event, then ends', async () => {
      const small = await startFakeApiServer({ crds: [sampleDbCrd()], watchCacheWindow: 3 });
      try {
        const start = small.resourceVersion;
        for (const n of ['a', 'b', 'c', 'd']) await http(small.url, 'POST', BASE, sdb(n));
        const old = await openWatch(small.url, `${BASE}?watch=true&resourceVersion=${start}`);
        expect(await old.ended).toBe('clean');
        expect(old.events).toHaveLength(1);
        expect(old.events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
        const recent = await openWatch(small.url, `${BASE}?watch=true&resourceVersion=${Number(small.resourceVersion) - 2}&timeoutSeconds=1`);
        expect(await recent.ended).toBe('clean');
        expect(recent.events.map((e) => e.object.metadata.name)).toEqual(['c', 'd']);
        // the window is per resource: writes to other resources do not push SampleDB events out
        const before = small.resourceVersion;
        await http(small.url, 'POST', BASE, sdb('e'));
        for (const n of ['x1', 'x2', 'x3', 'x4']) await http(small.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: n } });
        const other = await openWatch(small.url, `${BASE}?watch=true&resourceVersion=${before}&timeoutSeconds=1`);
        expect(await other.ended).toBe('clean');
        expect(other.events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED e']);
      } finally {
        await small.close();
      }
    });

    test('without resourceVersion a watch starts with synthetic ADDED events; sendInitialEvents ends them with an annotated bookmark', async () => {
      await http(s.url, 'POST', BASE, sdb('one'));
      const plain = await openWatch(s.url, `${BASE}?watch=true&timeoutSeconds=1`);
      expect(await plain.ended).toBe('clean');
      expect(plain.events.map((e) => e.type)).toEqual(['ADDED']);
      const streaming = await openWatch(s.url, `${BASE}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`);
      await streaming.ended;
      expect(streaming.events[0].type).toBe('ADDED');
      expect(streaming.events[1]).toMatchObject({ type: 'BOOKMARK', object: { metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } } });
      expect(streaming.events.filter((e) => e.object.metadata.annotations?.['k8s.io/initial-events-end'])).toHaveLength(1);
    });

    test('label selector transitions turn MODIFIED into ADDED/DELETED for the watcher', async () => {
      await http(s.url, 'POST', BASE, sdb('x', {}, { labels: { tier: 'db' } }));
      const w = await openWatch(s.url, `${BASE}?watch=true&labelSelector=tier%3Dweb&resourceVersion=${s.resourceVersion}`);
      const patch = (labels: any) => http(s.url, 'PATCH', `${BASE}/x`, { metadata: { labels } }, { 'Content-Type': 'application/merge-patch+json' });
      await patch({ tier: 'web' });
      await patch({ tier: 'web', extra: '1' });
      await patch({ tier: 'db' });
      await waitFor(() => w.events.length >= 3);
      expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      w.close();
    });

    test('bookmarks carry the current resourceVersion', async () => {
      const w = await openWatch(s.url, `${BASE}?watch=true&allowWatchBookmarks=true&resourceVersion=${s.resourceVersion}`);
      await http(s.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'other' } });
      await waitFor(() => w.events.some((e) => e.type === 'BOOKMARK' && e.object.metadata.resourceVersion === s.resourceVersion));
      expect(w.events.every((e) => e.type === 'BOOKMARK')).toBe(true);
      w.close();
    });
  });

  describe('lists', () => {
    test('label selectors: =, !=, in, notin, exists, !exists; field selectors on name and namespace', async () => {
      await http(s.url, 'POST', BASE, sdb('a', {}, { labels: { app: 'x', tier: 'db' } }));
      await http(s.url, 'POST', BASE, sdb('b', {}, { labels: { app: 'y' } }));
      await http(s.url, 'POST', BASE, sdb('c'));
      const names = async (q: string) => (await http(s.url, 'GET', `${BASE}?${q}`)).body.items.map((i: any) => i.metadata.name);
      expect(await names('labelSelector=app%3Dx')).toEqual(['a']);
      expect(await names('labelSelector=app!%3Dx')).toEqual(['b', 'c']);
      expect(await names(`labelSelector=${encodeURIComponent('app in (x,y)')}`)).toEqual(['a', 'b']);
      expect(await names(`labelSelector=${encodeURIComponent('app notin (x)')}`)).toEqual(['b', 'c']);
      expect(await names('labelSelector=tier')).toEqual(['a']);
      expect(await names(`labelSelector=${encodeURIComponent('!tier,app')}`)).toEqual(['b']);
      expect(await names('fieldSelector=metadata.name%3Db')).toEqual(['b']);
      expect(await names('fieldSelector=metadata.namespace%3Ddefault')).toEqual(['a', 'b', 'c']);
      const all = await http(s.url, 'GET', '/apis/db.example.com/v1/sampledbs?fieldSelector=metadata.namespace%3Dother');
      expect(all.body.items).toEqual([]);
    });

    test('field selectors are limited to supported labels (CRD selectableFields, built-in attrs) like the apiserver', async () => {
      const unsupported = await http(s.url, 'GET', `${BASE}?fieldSelector=spec.version%3D16`);
      expect(unsupported.code).toBe(400);
      expect(unsupported.body.message).toBe('field label not supported: spec.version');
      const crd = sampleDbCrd();
      crd.spec.versions[0].selectableFields = [{ jsonPath: '.spec.version' }];
      const g = await startFakeApiServer({ crds: [crd] });
      try {
        await http(g.url, 'POST', BASE, sdb('a', { version: '16' }));
        await http(g.url, 'POST', BASE, sdb('b', { version: '17' }));
        const r = await http(g.url, 'GET', `${BASE}?fieldSelector=spec.version%3D16`);
        expect(r.body.items.map((i: any) => i.metadata.name)).toEqual(['a']);
      } finally {
        await g.close();
      }
      expect((await http(s.url, 'GET', '/api/v1/namespaces/default/secrets?fieldSelector=type%3DOpaque')).code).toBe(200);
      expect((await http(s.url, 'GET', '/api/v1/namespaces/default/configmaps?fieldSelector=data.x%3Dy')).code).toBe(400);
    });

    test('paging walks every object once; remainingItemCount is omitted with selectors', async () => {
      for (let i = 0; i < 5; i++) await http(s.url, 'POST', BASE, sdb(`o${i}`, {}, { labels: { k: 'v' } }));
      const seen: string[] = [];
      let cont = '';
      do {
        const page = (await http(s.url, 'GET', `${BASE}?limit=2${cont ? `&continue=${cont}` : ''}`)).body;
        seen.push(...page.items.map((i: any) => i.metadata.name));
        cont = page.metadata.continue ?? '';
      } while (cont);
      expect(seen).toEqual(['o0', 'o1', 'o2', 'o3', 'o4']);
      const selected = (await http(s.url, 'GET', `${BASE}?limit=2&labelSelector=k%3Dv`)).body;
      expect(selected.metadata.continue).toBeDefined();
      expect(selected.metadata.remainingItemCount).toBeUndefined();
    });

    test('continuing a paged list reads the snapshot of its first page, not later writes', async () => {
      for (const n of ['a', 'b', 'c', 'd']) await http(s.url, 'POST', BASE, sdb(n, { replicas: 1 }));
      const first = (await http(s.url, 'GET', `${BASE}?limit=2`)).body;
      await http(s.url, 'DELETE', `${BASE}/c`);
      await http(s.url, 'POST', BASE, sdb('bb'));
      await http(s.url, 'PATCH', `${BASE}/d`, { spec: { replicas: 5 } }, { 'Content-Type': 'application/merge-patch+json' });
      const rest = (await http(s.url, 'GET', `${BASE}?limit=2&continue=${first.metadata.continue}`)).body;
      expect(rest.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      expect(rest.items.map((i: any) => `${i.metadata.name}=${i.spec.replicas}`)).toEqual(['c=1', 'd=1']);
      const exact = (await http(s.url, 'GET', `${BASE}?resourceVersion=${first.metadata.resourceVersion}&resourceVersionMatch=Exact`)).body;
      expect(exact.items.map((i: any) => i.metadata.name)).toEqual(['a', 'b', 'c', 'd']);
      const now = (await http(s.url, 'GET', BASE)).body;
      expect(now.items.map((i: any) => i.metadata.name)).toEqual(['a', 'b', 'bb', 'd']);
    });

    test('built-in list items carry no kind/apiVersion (typed lists), custom ones do', async () => {
      await http(s.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'cm' }, data: { a: 'b' } });
      await http(s.url, 'POST', BASE, sdb('a'));
      const cms = (await http(s.url, 'GET', '/api/v1/namespaces/default/configmaps')).body;
      expect(cms.kind).toBe('ConfigMapList');
      expect(cms.items[0].kind).toBeUndefined();
      const crs = (await http(s.url, 'GET', BASE)).body;
      expect(crs.items[0].kind).toBe('SampleDB');
    });
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

  describe('deletion', () => {
    test('DELETE without finalizers answers a Success Status; foreground without gc leaves the object terminating', async () => {
      await http(s.url, 'POST', BASE, sdb('a'));
      const del = await http(s.url, 'DELETE', `${BASE}/a`);
      expect(del.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'a', group: 'db.example.com', kind: 'sampledbs' } });
      await http(s.url, 'POST', BASE, sdb('b'));
      const fg = await http(s.url, 'DELETE', `${BASE}/b`, { propagationPolicy: 'Foreground' });
      expect(fg.body.metadata.finalizers).toEqual(['foregroundDeletion']);
      expect(fg.body.metadata.deletionTimestamp).toBeDefined();
    });

    test('delete preconditions: stale uid → 409', async () => {
      await http(s.url, 'POST', BASE, sdb('a'));
      const r = await http(s.url, 'DELETE', `${BASE}/a`, { preconditions: { uid: 'nope' } });
      expect(r.code).toBe(409);
      expect(r.body.message).toContain('Precondition failed: UID in precondition: nope');
    });

    test('deletecollection with a label selector', async () => {
      await http(s.url, 'POST', BASE, sdb('a', {}, { labels: { gone: 'yes' } }));
      await http(s.url, 'POST', BASE, sdb('b'));
      const r = await http(s.url, 'DELETE', `${BASE}?labelSelector=gone%3Dyes`);
      expect(r.body.items.map((i: any) => i.metadata.name)).toEqual(['a']);
      expect((await http(s.url, 'GET', BASE)).body.items.map((i: any) => i.metadata.name)).toEqual(['b']);
    });

    test('namespaces: missing → 404 on create, terminating → 403 Forbidden', async () => {
      const missing = await http(s.url, 'POST', '/apis/db.example.com/v1/namespaces/nope/sampledbs', sdb('a'));
      expect(missing.code).toBe(404);
      expect(missing.body.message).toBe('namespaces "nope" not found');
      await http(s.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'temp' } });
      const del = await http(s.url, 'DELETE', '/api/v1/namespaces/temp');
      expect(del.body.status.phase).toBe('Terminating');
      const r = await http(s.url, 'POST', '/apis/db.example.com/v1/namespaces/temp/sampledbs', sdb('a'));
      expect(r.code).toBe(403);
      expect(r.body.message).toContain('because it is being terminated');
    });

    test('the default, kube-system and kube-public namespaces cannot be deleted', async () => {
      const r = await http(s.url, 'DELETE', '/api/v1/namespaces/default');
      expect(r.code).toBe(403);
      expect(r.body.message).toBe('namespaces "default" is forbidden: this namespace may not be deleted');
    });

    test('namespaces: spec.finalizers change only through /finalize; emptying them deletes a terminating namespace', async () => {
      await http(s.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'fin' } });
      const ns = (await http(s.url, 'DELETE', '/api/v1/namespaces/fin')).body;
      const viaMain = await http(s.url, 'PUT', '/api/v1/namespaces/fin', { ...ns, spec: { finalizers: [] } });
      expect(viaMain.body.spec.finalizers).toEqual(['kubernetes']);
      const viaFinalize = await http(s.url, 'PUT', '/api/v1/namespaces/fin/finalize', { ...ns, spec: { finalizers: [] } });
      expect(viaFinalize.code).toBe(200);
      expect((await http(s.url, 'GET', '/api/v1/namespaces/fin')).code).toBe(404);
    });

    test('gc with namespaces: deleting a namespace deletes its contents, then the namespace', async () => {
      const g = await startFakeApiServer({ gc: true });
      try {
        await http(g.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'tmp' } });
        await http(g.url, 'POST', '/api/v1/namespaces/tmp/configmaps', { metadata: { name: 'a' } });
        await http(g.url, 'DELETE', '/api/v1/namespaces/tmp');
        await waitFor(() => g.get('v1', 'Namespace', undefined, 'tmp') === undefined);
        expect(g.get('v1', 'ConfigMap', 'tmp', 'a')).toBeUndefined();
      } finally {
        await g.close();
      }
    });

    test('gc: deleting an owner deletes its dependents; without gc they stay', async () => {
      for (const gc of [true, false]) {
        const g = await startFakeApiServer({ gc });
        try {
          const owner = (await http(g.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'owner' } })).body;
          const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
          await http(g.url, 'POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'dep', ownerReferences: [ref] } });
          await http(g.url, 'DELETE', '/api/v1/namespaces/default/configmaps/owner');
          if (gc) await waitFor(() => g.get('v1', 'Secret', 'default', 'dep') === undefined);
          else {
            await new Promise((r) => setTimeout(r, 50));
            expect(g.get('v1', 'Secret', 'default', 'dep')).toBeDefined();
          }
        } finally {
          await g.close();
        }
      }
    });
  });

  describe('simulateWorkloads', () => {
    test('deployments and statefulsets report ready replicas for their latest generation', async () => {
      const g = await startFakeApiServer({ simulateWorkloads: true, workloadDelayMs: 10 });
      try {
        const tpl = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } };
        await http(g.url, 'POST', '/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'd' }, spec: { replicas: 2, selector: { matchLabels: { app: 'a' } }, template: tpl } });
        await waitFor(() => g.get('apps/v1', 'Deployment', 'default', 'd')?.status?.availableReplicas === 2);
        const d = g.get('apps/v1', 'Deployment', 'default', 'd');
        expect(d.status.observedGeneration).toBe(d.metadata.generation);
        expect(d.status.conditions.map((c: any) => `${c.type}=${c.status}`)).toEqual(['Available=True', 'Progressing=True']);
        await http(g.url, 'PATCH', '/apis/apps/v1/namespaces/default/deployments/d', { spec: { replicas: 3 } }, { 'Content-Type': 'application/merge-patch+json' });
        await waitFor(() => g.get('apps/v1', 'Deployment', 'default', 'd')?.status?.availableReplicas === 3);
        expect(g.get('apps/v1', 'Deployment', 'default', 'd').status.observedGeneration).toBe(2);
        await http(g.url, 'POST', '/apis/apps/v1/namespaces/default/statefulsets', { metadata: { name: 's' }, spec: { replicas: 1, serviceName: 's', selector: { matchLabels: { app: 'a' } }, template: tpl } });
        await waitFor(() => g.get('apps/v1', 'StatefulSet', 'default', 's')?.status?.readyReplicas === 1);
      } finally {
        await g.close();
      }
      // off by default, like envtest
      await http(s.url, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
        metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
      });
      await new Promise((r) => setTimeout(r, 100));
      expect(s.get('apps/v1', 'Deployment', 'default', 'd').status).toEqual({});
    });
  });

  describe('CRDs through the API', () => {
    test('creating a CRD registers its resources with Established/NamesAccepted; deleting it removes them', async () => {
      const crd = { ...sampleDbCrd(), metadata: { name: 'widgets.example.org' } };
      crd.spec = { ...crd.spec, group: 'example.org', names: { kind: 'Widget', plural: 'widgets' } };
      const created = await http(s.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      expect(created.code).toBe(201);
      expect(created.body.status.conditions.map((c: any) => `${c.type}=${c.status}`)).toEqual(['NamesAccepted=True', 'Established=True']);
      expect(created.body.status.acceptedNames).toMatchObject({ kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' });
      expect(created.body.status.storedVersions).toEqual(['v1']);
      const disc = await http(s.url, 'GET', '/apis/example.org/v1');
      expect(disc.body.resources.map((r: any) => r.name)).toEqual(['widgets', 'widgets/status', 'widgets/scale']);
      const groups = (await http(s.url, 'GET', '/apis')).body.groups.map((g: any) => g.name);
      expect(groups).toContain('example.org');
      expect((await http(s.url, 'POST', '/apis/example.org/v1/namespaces/default/widgets', { apiVersion: 'example.org/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} })).code).toBe(201);
      await http(s.url, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.org');
      expect((await http(s.url, 'GET', '/apis/example.org/v1/namespaces/default/widgets')).code).toBe(404);
      const bad = await http(s.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { ...crd, metadata: { name: 'wrong.example.org' } });
      expect(bad.code).toBe(422);
    });
  });

  describe('direct store access and request log', () => {
    test('put/get/remove bump resourceVersion and emit watch events; requests records verbs', async () => {
      const w = await openWatch(s.url, `${BASE}?watch=true&resourceVersion=${s.resourceVersion}`);
      const stored = s.put(sdb('direct', { replicas: 2 }));
      expect(stored.metadata.uid).toBeDefined();
      const withStatus = s.put({ ...stored, status: { replicas: 2 } });
      expect(withStatus.status).toEqual({ replicas: 2 });
      expect(s.get('db.example.com/v1', 'SampleDB', 'default', 'direct').status).toEqual({ replicas: 2 });
      s.remove('db.example.com/v1', 'SampleDB', 'default', 'direct');
      await waitFor(() => w.events.length >= 3);
      expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      w.close();
      await http(s.url, 'GET', `${BASE}/direct`);
      expect(s.requests.map((r) => `${r.verb} ${r.resource} ${r.code}`)).toEqual(['watch sampledbs 200', 'get sampledbs 404']);
    });

    test('discovery, version and health endpoints', async () => {
      expect((await http(s.url, 'GET', '/healthz')).body).toBe('ok');
      expect((await http(s.url, 'GET', '/readyz')).code).toBe(200);
      expect((await http(s.url, 'GET', '/version')).body.minor).toBe('32');
      expect((await http(s.url, 'GET', '/api')).body.versions).toEqual(['v1']);
      const core = (await http(s.url, 'GET', '/api/v1')).body.resources;
      expect(core.find((r: any) => r.name === 'namespaces')).toMatchObject({ namespaced: false, kind: 'Namespace' });
      expect(core.find((r: any) => r.name === 'configmaps')).toMatchObject({ namespaced: true, shortNames: ['cm'] });
      expect((await http(s.url, 'GET', '/apis/apps/v1')).body.resources.map((r: any) => r.name)).toContain('deployments/scale');
      expect((await http(s.url, 'GET', '/apis/nope/v1/things')).code).toBe(404);
    });
  });
});
