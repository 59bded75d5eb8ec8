import { FakeApiServer, startFakeApiServer, waitFor } from '.';
import { sampleDbCrd } from './fixtures';
import { http, openWatch } from './http';

const BASE = '/apis/db.example.com/v1/namespaces/default/sampledbs';
const sdb = (name: string, spec: any = {}, extra: any = {}) => ({ apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name, ...extra }, spec });

describe('fake apiserver: cluster behaviour', () => {
  let s: FakeApiServer;
  beforeEach(async () => {
    s = await startFakeApiServer({ crds: [sampleDbCrd()], bookmarkIntervalMs: 50 });
  });
  afterEach(async () => {
    await s.close();
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
      const w = await openWatch(s.url, `/apis/example.org/v1/namespaces/default/widgets?watch=true&resourceVersion=${s.resourceVersion}`);
      await http(s.url, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.org');
      expect(await w.ended).toBe('clean');
      expect(w.events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['DELETED w']);
      expect((await http(s.url, 'GET', '/apis/example.org/v1/namespaces/default/widgets')).code).toBe(404);
      const bad = await http(s.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { ...crd, metadata: { name: 'wrong.example.org' } });
      expect(bad.code).toBe(422);
    });
  });

  describe('multi-version CRDs', () => {
    test('versions share storage (conversion None), each validates with its own schema; deprecated versions warn', async () => {
      const crd = sampleDbCrd();
      const v1 = crd.spec.versions[0];
      crd.spec.versions = [
        v1,
        { ...v1, name: 'v1beta1', storage: false, deprecated: true, subresources: undefined, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer', maximum: 3 } } } } } } },
      ];
      const g = await startFakeApiServer({ crds: [crd] });
      try {
        const beta = '/apis/db.example.com/v1beta1/namespaces/default/sampledbs';
        const created = await http(g.url, 'POST', beta, { apiVersion: 'db.example.com/v1beta1', kind: 'SampleDB', metadata: { name: 'a' }, spec: { replicas: 2 } });
        expect(created.code).toBe(201);
        expect(created.headers.get('warning')).toBe('299 - "db.example.com/v1beta1 SampleDB is deprecated"');
        const viaV1 = await http(g.url, 'GET', `${BASE}/a`);
        expect(viaV1.body.apiVersion).toBe('db.example.com/v1');
        expect(viaV1.headers.get('warning')).toBeNull();
        expect((await http(g.url, 'POST', beta, { apiVersion: 'db.example.com/v1beta1', kind: 'SampleDB', metadata: { name: 'b' }, spec: { replicas: 5 } })).code).toBe(422);
        expect((await http(g.url, 'GET', '/apis/db.example.com')).body.preferredVersion.version).toBe('v1');
      } finally {
        await g.close();
      }
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
