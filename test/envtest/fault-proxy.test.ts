import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeRealApiServer, FaultProxy } from '.';
import { requestInfo } from './fault-proxy';
import { until } from '../runtime/support';

describe('test doubles stay thin', () => {
  test('nothing under test/envtest answers for the apiserver with the library under test (no lib/ import)', () => {
    const offenders = readdirSync(__dirname)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /from ['"][./]*\/lib(\/|['"])/.test(readFileSync(join(__dirname, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  test('requestInfo derives verb and resource like the apiserver', () => {
    expect(requestInfo('GET', '/api/v1/namespaces/ns/pods?watch=true&resourceVersion=5')).toMatchObject({
      verb: 'watch',
      resource: 'pods',
      namespace: 'ns',
    });
    expect(requestInfo('GET', '/apis/apps/v1/deployments')).toMatchObject({
      verb: 'list',
      resource: 'deployments',
      namespace: undefined,
    });
    expect(requestInfo('PATCH', '/apis/g.io/v1/namespaces/ns/foos/a/status')).toMatchObject({
      verb: 'patch',
      resource: 'foos',
      name: 'a',
      subresource: 'status',
    });
    expect(requestInfo('DELETE', '/api/v1/namespaces/ns/configmaps')).toMatchObject({ verb: 'deletecollection' });
    expect(requestInfo('PUT', '/api/v1/namespaces/ns')).toMatchObject({
      verb: 'update',
      resource: 'namespaces',
      name: 'ns',
    });
  });
});

describeRealApiServer(
  'fault proxy in front of the apiserver',
  (plane) => {
    let proxy: FaultProxy;
    let ns: string;
    const get = (path: string) =>
      fetch(`${proxy.url}${path}`, { headers: { authorization: `Bearer ${plane().admin.token}` } });

    beforeEach(async () => {
      proxy = await FaultProxy.start(plane());
      ns = await plane().createNamespace('proxy-');
    });
    afterEach(() => proxy.close());

    test("forwards to the real apiserver with the client's own token and logs verb, resource and code", async () => {
      expect((await get(`/api/v1/namespaces/${ns}/configmaps/missing`)).status).toBe(404);
      const anonymous = await fetch(`${proxy.url}/api/v1/namespaces/${ns}/configmaps`);
      expect(anonymous.status).toBe(403); // no token: system:anonymous, which RBAC denies
      expect(proxy.requests.map((r) => [r.verb, r.resource, r.code, r.injected])).toEqual([
        ['get', 'configmaps', 404, false],
        ['list', 'configmaps', 403, false],
      ]);
    });

    test('failNext answers 429 with Retry-After (and a Status), only for matching requests, count times', async () => {
      proxy.failNext({ verb: 'list', resource: 'configmaps', count: 2 }, 429, { retryAfterSeconds: 3 });
      const first = await get(`/api/v1/namespaces/${ns}/configmaps`);
      expect([first.status, first.headers.get('retry-after')]).toEqual([429, '3']);
      expect(await first.json()).toMatchObject({
        kind: 'Status',
        code: 429,
        reason: 'TooManyRequests',
        details: { retryAfterSeconds: 3 },
      });
      expect((await get(`/api/v1/namespaces/${ns}/secrets`)).status).toBe(200);
      expect((await get(`/api/v1/namespaces/${ns}/configmaps`)).status).toBe(429);
      expect((await get(`/api/v1/namespaces/${ns}/configmaps`)).status).toBe(200);
    });

    test('delayNext slows matching requests down', async () => {
      proxy.delayNext({ verb: 'list', resource: 'configmaps' }, 400);
      const t = Date.now();
      expect((await get(`/api/v1/namespaces/${ns}/configmaps`)).status).toBe(200);
      expect(Date.now() - t).toBeGreaterThanOrEqual(390);
    });

    test('dropWatches ends open watches; stallWatches holds their events back, then delivers them', async () => {
      const events: string[] = [];
      /** Opens a watch; resolves once the proxy holds it, with a promise of its end. */
      const open = async (): Promise<{ ended: Promise<void> }> => {
        const res = await get(`/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=0`);
        expect(res.status).toBe(200);
        const reader = res.body!.getReader();
        let buffered = '';
        const ended = (async () => {
          for (;;) {
            const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
            if (chunk.done) return;
            buffered += Buffer.from(chunk.value!).toString();
            const lines = buffered.split('\n');
            buffered = lines.pop()!;
            for (const line of lines.filter(Boolean)) events.push(JSON.parse(line).object.metadata.name);
          }
        })();
        await until('watch open', () => proxy.openWatches === 1, 5000);
        return { ended };
      };
      const first = await open();
      expect(proxy.dropWatches()).toBe(1);
      await first.ended;

      await open();
      proxy.stallWatches(1500);
      const stalledAt = Date.now();
      await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'held' } });
      await until('held event', () => events.includes('held'), 5000);
      expect(Date.now() - stalledAt).toBeGreaterThanOrEqual(1400);
      proxy.dropWatches();
    });
  },
  { shared: true },
);
