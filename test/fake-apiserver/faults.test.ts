import { FakeApiServer, startFakeApiServer, waitFor } from '.';
import { sampleDbCrd } from './fixtures';
import { http, openWatch } from './http';

const BASE = '/apis/db.example.com/v1/namespaces/default/sampledbs';
const sdb = (name: string, spec: any = {}, extra: any = {}) => ({ apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name, ...extra }, spec });

describe('fake apiserver: faults and restarts', () => {
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

    test('delayNext slows matching requests down', async () => {
      s.faults.delayNext({ verb: 'get', resource: 'sampledbs' }, 1000);
      const start = Date.now();
      expect((await http(s.url, 'GET', `${BASE}/x`)).code).toBe(404);
      expect(Date.now() - start).toBeGreaterThanOrEqual(950);
      const again = Date.now();
      await http(s.url, 'GET', `${BASE}/x`); // count 1: only the first was delayed
      expect(Date.now() - again).toBeLessThan(800);
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
});
