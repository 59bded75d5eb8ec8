import { FakeApiServer, startFakeApiServer } from '.';
import { sampleDbCrd } from './fixtures';
import { http } from './http';

const BASE = '/apis/db.example.com/v1/namespaces/default/sampledbs';
const sdb = (name: string, spec: any = {}, extra: any = {}) => ({ apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name, ...extra }, spec });

describe('fake apiserver: lists', () => {
  let s: FakeApiServer;
  beforeEach(async () => {
    s = await startFakeApiServer({ crds: [sampleDbCrd()], bookmarkIntervalMs: 50 });
  });
  afterEach(async () => {
    await s.close();
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
});
