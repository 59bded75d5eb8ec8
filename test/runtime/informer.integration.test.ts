import { startFakeApiServer, FakeApiServer } from '../fake-apiserver';
import { RestClient } from '../../runtime/client';
import { Informer } from '../../runtime/informer';
import { RuntimeMetrics } from '../../runtime/metrics';
import { KubeObject } from '../../runtime/resource';
import { FAST_INFORMER, sleep, testLogger, until } from './support';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };

function cm(name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data };
}

interface Recorded { type: 'add' | 'update' | 'delete'; name: string }

describe('Informer against the fake apiserver', () => {
  let fake: FakeApiServer;
  let client: RestClient;
  let informer: Informer;
  let metrics: RuntimeMetrics;
  let events: Recorded[];

  async function startInformer(options: Partial<ConstructorParameters<typeof Informer>[2]> = {}) {
    metrics = new RuntimeMetrics();
    client = RestClient.fromKubeConfig(fake.kubeConfig(), { metrics, retryBaseMs: 20 });
    informer = new Informer(client, CM, { ...FAST_INFORMER, namespace: 'default', ...options }, testLogger(), metrics);
    events = [];
    informer.addEventHandler({
      onAdd: (o) => events.push({ type: 'add', name: o.metadata!.name! }),
      onUpdate: (_o, n) => events.push({ type: 'update', name: n.metadata!.name! }),
      onDelete: (o) => events.push({ type: 'delete', name: o.metadata!.name! }),
    });
    informer.start();
    expect(await informer.waitForSync(5000)).toBe(true);
  }

  afterEach(async () => {
    await informer?.stop();
    client?.close();
    await fake?.close();
  });

  test('lists (paginated, limit=500), watches with bookmarks, and strips managedFields', async () => {
    fake = await startFakeApiServer({ bookmarkIntervalMs: 100 });
    for (let i = 0; i < 3; i++) fake.put(cm(`pre-${i}`));
    await startInformer();
    expect(informer.cache.keys().sort()).toEqual(['default/pre-0', 'default/pre-1', 'default/pre-2']);
    await client.create(cm('live', { a: '1' }), { fieldManager: 'test' });
    await until('watch add', () => informer.cache.get('default/live'));
    expect(informer.cache.get('default/live')!.metadata!.managedFields).toBeUndefined();
    const watches = fake.requests.filter((r) => r.verb === 'watch');
    expect(watches[0].path).toMatch(/allowWatchBookmarks=true/);
    const timeout = Number(/timeoutSeconds=(\d+)/.exec(watches[0].path)![1]);
    expect(timeout).toBeGreaterThanOrEqual(300);
    expect(timeout).toBeLessThan(600);
    expect(fake.requests.find((r) => r.verb === 'list')!.path).toMatch(/limit=500/);
    // continue tokens against the real paging implementation
    const paged = RestClient.fromKubeConfig(fake.kubeConfig(), { pageSize: 2 });
    const all = await paged.list(CM, { namespace: 'default' });
    paged.close();
    expect(all.items.map((i) => i.metadata!.name).sort()).toEqual(['live', 'pre-0', 'pre-1', 'pre-2']);
    expect(fake.requests.filter((r) => r.verb === 'list' && /continue=/.test(r.path)).length).toBeGreaterThanOrEqual(1);
  });

  test('410 after compaction → re-list with deletes for vanished objects', async () => {
    fake = await startFakeApiServer();
    fake.put(cm('stays'));
    fake.put(cm('vanishes'));
    await startInformer();
    const listsBefore = fake.requests.filter((r) => r.verb === 'list').length;
    // While the server is down the objects change and history is compacted; the watcher resumes from an expired resourceVersion.
    const restarting = fake.restart({ downMs: 300 });
    fake.remove('v1', 'ConfigMap', 'default', 'vanishes');
    fake.put(cm('appeared'));
    fake.compact();
    await restarting;
    await until('relist delete', () => events.some((e) => e.type === 'delete' && e.name === 'vanishes'));
    await until('relist add', () => events.some((e) => e.type === 'add' && e.name === 'appeared'));
    expect(informer.cache.keys().sort()).toEqual(['default/appeared', 'default/stays']);
    expect(fake.requests.filter((r) => r.verb === 'list').length).toBeGreaterThan(listsBefore);
    expect(await metrics.value('runtime_watch_restarts_total', { reason: 'gone' })).toBeGreaterThanOrEqual(1);
  });

  test('a dropped watch reconnects from the last resourceVersion without a re-list', async () => {
    fake = await startFakeApiServer();
    await startInformer();
    await until('watch open', () => fake.openWatches === 1);
    fake.faults.dropWatches();
    await sleep(50);
    fake.put(cm('after-drop'));
    await until('event after drop', () => informer.cache.get('default/after-drop'));
    expect(fake.requests.filter((r) => r.verb === 'list')).toHaveLength(1);
    const reconnects = (await metrics.value('runtime_watch_restarts_total')) + (await metrics.value('runtime_watch_errors_total'));
    expect(reconnects).toBeGreaterThanOrEqual(1);
  });

  test('a silent (stalled) watch is restarted by the watchdog', async () => {
    fake = await startFakeApiServer({ bookmarkIntervalMs: 60_000 });
    await startInformer({ watchdogMs: 300 });
    await until('watch open', () => fake.openWatches === 1);
    fake.faults.stallWatches(1500);
    fake.put(cm('during-stall'));
    await until('watchdog restart', async () => (await metrics.value('runtime_watch_restarts_total', { reason: 'watchdog' })) >= 1, 5000);
    await until('event after stall', () => informer.cache.get('default/during-stall'), 5000);
    expect(fake.requests.filter((r) => r.verb === 'watch').length).toBeGreaterThanOrEqual(2);
  });

  test('survives an apiserver restart and keeps delivering', async () => {
    fake = await startFakeApiServer();
    await startInformer();
    await fake.restart({ downMs: 400 });
    fake.put(cm('after-restart'));
    await until('event after restart', () => informer.cache.get('default/after-restart'), 8000);
    expect(await metrics.value('runtime_watch_errors_total') + await metrics.value('runtime_watch_restarts_total')).toBeGreaterThanOrEqual(1);
  });

  test('keeps retrying through 5xx on list and never stops silently', async () => {
    fake = await startFakeApiServer();
    fake.faults.failNext({ verb: 'list', resource: 'configmaps', count: 8 }, 500);
    metrics = new RuntimeMetrics();
    client = RestClient.fromKubeConfig(fake.kubeConfig(), { metrics, retryBaseMs: 5, maxRetries: 2 });
    informer = new Informer(client, CM, { ...FAST_INFORMER, namespace: 'default' }, testLogger(), metrics);
    informer.start();
    expect(await informer.waitForSync(8000)).toBe(true);
    expect(await metrics.value('runtime_watch_errors_total', { reason: '500' })).toBeGreaterThanOrEqual(2);
    expect(await metrics.value('rest_client_requests_total', { code: '500', method: 'GET' })).toBe(8);
  });
});
