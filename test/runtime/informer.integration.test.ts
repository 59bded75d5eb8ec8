/** The informer on a real kube-apiserver, through the fault proxy for broken, stalled and refused watches. */
import { RestClient } from '../../runtime/client';
import { Informer } from '../../runtime/informer';
import { RuntimeMetrics } from '../../runtime/metrics';
import { KubeObject } from '../../runtime/resource';
import { describeRealApiServer, FaultProxy } from '../envtest';
import { FAST_INFORMER, hostSlackMs, sleep, testLogger, until } from './support';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const T = 15_000;

/** Runs `task(i)` for i in [0, n) with at most `parallel` in flight. */
async function inParallel(n: number, parallel: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

interface Recorded {
  type: 'add' | 'update' | 'delete';
  name: string;
}

describeRealApiServer('Informer', (plane) => {
  let proxy: FaultProxy;
  let ns: string;
  let client: RestClient | undefined;
  let informer: Informer | undefined;
  let metrics: RuntimeMetrics;
  let events: Recorded[];

  const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns },
    data,
  });
  /** A write by someone else (the admin, straight to the apiserver). */
  const put = async (name: string) =>
    expect((await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, cm(name))).code).toBe(201);
  const remove = async (name: string) =>
    expect((await plane().request('DELETE', `/api/v1/namespaces/${ns}/configmaps/${name}`)).code).toBe(200);

  beforeEach(async () => {
    proxy = await FaultProxy.start(plane());
    ns = await plane().createNamespace('informer-');
  });

  async function startInformer(options: Partial<ConstructorParameters<typeof Informer>[2]> = {}, clientOptions = {}) {
    metrics = new RuntimeMetrics();
    client = RestClient.fromKubeConfig(proxy.kubeConfig(), { metrics, retryBaseMs: 20, ...clientOptions });
    informer = new Informer(client, CM, { ...FAST_INFORMER, namespace: ns, ...options }, testLogger(), metrics);
    events = [];
    informer.addEventHandler({
      onAdd: (o) => events.push({ type: 'add', name: o.metadata!.name! }),
      onUpdate: (_o, n) => events.push({ type: 'update', name: n.metadata!.name! }),
      onDelete: (o) => events.push({ type: 'delete', name: o.metadata!.name! }),
    });
    informer.start();
    expect(await informer.waitForSync(T)).toBe(true);
    return informer;
  }

  afterEach(async () => {
    await informer?.stop();
    client?.close();
    informer = undefined;
    client = undefined;
    await proxy.close();
  });

  test('lists (paginated, limit=500), watches with bookmarks, and strips managedFields', async () => {
    for (let i = 0; i < 3; i++) await put(`pre-${i}`);
    const inf = await startInformer();
    expect(inf.cache.keys().sort()).toEqual([`${ns}/pre-0`, `${ns}/pre-1`, `${ns}/pre-2`]);
    await client!.create(cm('live', { a: '1' }), { fieldManager: 'test' });
    await until('watch add', () => inf.cache.get(`${ns}/live`), T);
    expect(inf.cache.get(`${ns}/live`)!.metadata!.managedFields).toBeUndefined();
    const watches = proxy.requests.filter((r) => r.verb === 'watch');
    expect(watches[0].path).toMatch(/allowWatchBookmarks=true/);
    const timeout = Number(/timeoutSeconds=(\d+)/.exec(watches[0].path)![1]);
    expect(timeout).toBeGreaterThanOrEqual(300);
    expect(timeout).toBeLessThan(600);
    expect(proxy.requests.find((r) => r.verb === 'list')!.path).toMatch(/limit=500/);
    // continue tokens of the real apiserver
    const paged = RestClient.fromKubeConfig(proxy.kubeConfig(), { pageSize: 2 });
    const all = await paged.list(CM, { namespace: ns });
    paged.close();
    expect(all.items.map((i) => i.metadata!.name).sort()).toEqual(['live', 'pre-0', 'pre-1', 'pre-2']);
    expect(proxy.requests.filter((r) => r.verb === 'list' && /continue=/.test(r.path)).length).toBeGreaterThanOrEqual(
      1,
    );
  });

  test('410 Gone (history compacted, apiserver restarted) → re-list with deletes for vanished objects', async () => {
    await put('stays');
    await put('vanishes');
    await startInformer();
    const listsBefore = proxy.requests.filter((r) => r.verb === 'list').length;
    // the informer is cut off while the objects change and etcd's history is compacted
    proxy.failNext({ verb: 'watch', resource: 'configmaps', count: 1_000_000 }, 503);
    proxy.dropWatches();
    await remove('vanishes');
    await put('appeared');
    await plane().compactEtcd();
    await plane().restartApiServer();
    proxy.clear();
    await until('relist delete', () => events.some((e) => e.type === 'delete' && e.name === 'vanishes'), T);
    await until('relist add', () => events.some((e) => e.type === 'add' && e.name === 'appeared'), T);
    expect(informer!.cache.keys().sort()).toEqual([`${ns}/appeared`, `${ns}/stays`]);
    expect(proxy.requests.filter((r) => r.verb === 'list').length).toBeGreaterThan(listsBefore);
    expect(proxy.requests.some((r) => r.verb === 'watch' && r.code === 200 && !r.injected)).toBe(true);
    expect(await metrics.value('runtime_watch_restarts_total', { reason: 'gone' })).toBeGreaterThanOrEqual(1);
  }, 90_000);

  test('a dropped watch reconnects from the last resourceVersion without a re-list', async () => {
    const inf = await startInformer();
    await until('watch open', () => proxy.openWatches === 1, T);
    proxy.dropWatches();
    await sleep(50);
    await put('after-drop');
    await until('event after drop', () => inf.cache.get(`${ns}/after-drop`), T);
    expect(proxy.requests.filter((r) => r.verb === 'list')).toHaveLength(1);
    const reconnects =
      (await metrics.value('runtime_watch_restarts_total')) + (await metrics.value('runtime_watch_errors_total'));
    expect(reconnects).toBeGreaterThanOrEqual(1);
  });

  test('a silent (stalled) watch is restarted by the watchdog', async () => {
    const inf = await startInformer({ watchdogMs: 300 });
    await until('watch open', () => proxy.openWatches === 1, T);
    const stalledAt = Date.now();
    // the stall and the bound below scale with the host's allowance: on a starved CI host the watchdog's restart and
    // relist take longer, and the test asks only that they beat the stalled stream
    const stallMs = hostSlackMs(10_000);
    proxy.stallWatches(stallMs);
    await put('during-stall');
    await until(
      'watchdog restart',
      async () => (await metrics.value('runtime_watch_restarts_total', { reason: 'watchdog' })) >= 1,
      T,
    );
    // delivered by what the watchdog started, long before the stalled stream would have let it through
    await until('event despite the stall', () => inf.cache.get(`${ns}/during-stall`), T);
    expect(Date.now() - stalledAt).toBeLessThan(stallMs);
  });

  test('an apiserver restart in the middle of a stream of writes: every object arrives, none twice, none deleted', async () => {
    // Sized so that the restart lands while the informer is receiving the objects, and asserted: some had
    // arrived before the apiserver went down (counted before), not all by the time it was back (counted right
    // after: no more than that had arrived when it went down).
    const M = 300;
    const inf = await startInformer();
    let written = 0;
    // The admin writes M ConfigMaps as a steady stream (2 at a time, 20 ms apart: ~3 s at least, longer than the
    // apiserver's 1 s graceful stop) through the restart. A write refused or cut off is retried; one that reached
    // etcd before its answer was lost then gets 409.
    const writer = inParallel(M, 2, async (i) => {
      for (;;) {
        const reply = await plane()
          .request('POST', `/api/v1/namespaces/${ns}/configmaps`, cm(`stream-${i}`))
          .catch(() => undefined);
        await sleep(20);
        if (reply?.code === 201 || reply?.code === 409) return void written++;
      }
    });
    const arrived = () => inf.cache.keys().filter((k) => k.startsWith(`${ns}/stream-`)).length;
    await until('the first object arrived', () => arrived() > 0, T, 5);
    const arrivedBefore = arrived();
    await plane().restartApiServer({ downMs: 400 });
    const arrivedAfter = arrived();
    expect({ arrivedBefore, arrivedAfter, midStream: arrivedBefore > 0 && arrivedAfter < M }).toStrictEqual({
      arrivedBefore,
      arrivedAfter,
      midStream: true,
    });
    await writer;
    expect(written).toBe(M);
    await until(`all ${M} arrived`, () => arrived() === M, 30_000);
    const listed = (await plane().request('GET', `/api/v1/namespaces/${ns}/configmaps`)).body.items.map(
      (o: KubeObject) => `${ns}/${o.metadata!.name}`,
    );
    expect(inf.cache.keys().sort()).toEqual(listed.sort());
    const streamed = events.filter((e) => e.name.startsWith('stream-'));
    expect(streamed.filter((e) => e.type === 'delete')).toEqual([]);
    expect(
      streamed
        .filter((e) => e.type === 'add')
        .map((e) => e.name)
        .sort(),
    ).toEqual(Array.from({ length: M }, (_, i) => `stream-${i}`).sort());
    expect(
      (await metrics.value('runtime_watch_errors_total')) + (await metrics.value('runtime_watch_restarts_total')),
    ).toBeGreaterThanOrEqual(1);
  }, 120_000);

  test('keeps retrying through 5xx on list and never stops silently', async () => {
    proxy.failNext({ verb: 'list', resource: 'configmaps', count: 8 }, 500);
    await startInformer({}, { retryBaseMs: 5, maxRetries: 2 });
    expect(await metrics.value('runtime_watch_errors_total', { reason: '500' })).toBeGreaterThanOrEqual(2);
    expect(await metrics.value('rest_client_requests_total', { code: '500', method: 'GET' })).toBe(8);
  });
});
