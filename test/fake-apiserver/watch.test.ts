import { FakeApiServer, startFakeApiServer, waitFor } from '.';
import { sampleDbCrd } from './fixtures';
import { http, openWatch } from './http';

const BASE = '/apis/db.example.com/v1/namespaces/default/sampledbs';
const sdb = (name: string, spec: any = {}, extra: any = {}) => ({ apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name, ...extra }, spec });

describe('fake apiserver: watch', () => {
  let s: FakeApiServer;
  beforeEach(async () => {
    s = await startFakeApiServer({ crds: [sampleDbCrd()], bookmarkIntervalMs: 50 });
  });
  afterEach(async () => {
    await s.close();
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
      const fromRv = await openWatch(s.url, `${BASE}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=${s.resourceVersion}&timeoutSeconds=1`);
      await fromRv.ended;
      expect(fromRv.events.slice(0, 2).map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    });

    test('list/watch option combinations the apiserver forbids answer 422', async () => {
      const noMatch = await http(s.url, 'GET', `${BASE}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true`);
      expect(noMatch.code).toBe(422);
      expect(noMatch.body.message).toBe('ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
      const listMatch = await http(s.url, 'GET', `${BASE}?resourceVersionMatch=NotOlderThan`);
      expect(listMatch.code).toBe(422);
      expect(listMatch.body.details.causes[0].message).toBe('Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
      expect((await http(s.url, 'GET', `${BASE}?resourceVersion=0&resourceVersionMatch=NotOlderThan`)).code).toBe(200);
      const garbage = await http(s.url, 'GET', `${BASE}?watch=true&resourceVersion=abc`);
      expect([garbage.code, garbage.body.message]).toEqual([400, 'invalid resource version: strconv.ParseUint: parsing "abc": invalid syntax']);
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
});
