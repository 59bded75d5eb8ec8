import * as http from 'http';
import { FakeApiServer, startFakeApiServer } from '../fake-apiserver';
import { ControllerBuilder } from '../../runtime/controller';
import { generationChanged } from '../../runtime/predicates';
import { Manager } from '../../runtime/manager';
import { FAST_INFORMER, sleep, testLogger, until } from './support';

function get(address: string, path: string): Promise<{ status: number; body: string; type?: string }> {
  return new Promise((resolve, reject) => {
    http.get(`http://${address}${path}`, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: res.headers['content-type'] }));
    }).on('error', reject);
  });
}

describe('Manager probes, metrics and shutdown', () => {
  let fake: FakeApiServer;
  let manager: Manager;

  afterEach(async () => {
    await manager?.stop();
    await fake?.close();
  });

  test('/readyz fails until caches synced, /healthz passes, /metrics on its own port', async () => {
    fake = await startFakeApiServer();
    fake.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'existing', namespace: 'default' } });
    fake.faults.failNext({ verb: 'list', resource: 'configmaps', count: 1_000_000 }, 503);
    manager = new Manager({
      kubeConfig: fake.kubeConfig(), logger: testLogger(), informer: FAST_INFORMER,
      clientOptions: { retryBaseMs: 5, maxRetries: 1 },
      healthProbeBindAddress: '127.0.0.1:0', metricsBindAddress: '127.0.0.1:0',
    });
    let reconciled = 0;
    new ControllerBuilder(manager, { name: 'cm' }).for({ apiVersion: 'v1', kind: 'ConfigMap' }).complete({ reconcile: async () => { reconciled++; } });
    const starting = manager.start();
    await until('probe server', () => manager.healthProbeAddress);
    expect((await get(manager.healthProbeAddress!, '/healthz')).status).toBe(200);
    const notReady = await get(manager.healthProbeAddress!, '/readyz');
    expect(notReady.status).toBe(500);
    expect(notReady.body).toMatch(/\[-\]informers-synced failed: not synced: v1\/ConfigMap/);
    expect(reconciled).toBe(0); // workers wait for the cache

    fake.faults.clear();
    await starting;
    expect((await get(manager.healthProbeAddress!, '/readyz')).status).toBe(200);
    expect((await get(manager.healthProbeAddress!, '/readyz/informers-synced?verbose')).body).toMatch(/\[\+\]informers-synced ok/);
    expect((await get(manager.healthProbeAddress!, '/readyz/nope')).status).toBe(404);

    await until('reconciled existing configmaps', () => reconciled > 0);
    const metrics = await get(manager.metricsAddress!, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.type).toMatch(/text\/plain/);
    expect(metrics.body).toMatch(/^controller_runtime_reconcile_total\{controller="cm",result="success"\} \d+/m);
    expect(metrics.body).toMatch(/^rest_client_requests_total\{code="503",method="GET",host="127\.0\.0\.1:\d+"\} \d+/m);
    expect(metrics.body).toMatch(/^controller_runtime_max_concurrent_reconciles\{controller="cm"\} 1/m);
    expect(manager.metricsAddress).not.toBe(manager.healthProbeAddress);
  });

  test('owns() maps old and new controller owners, watches() uses the map function, predicates filter', async () => {
    fake = await startFakeApiServer();
    const owner = (name: string) => fake.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });
    const a = owner('owner-a');
    const b = owner('owner-b');
    const ref = (o: any) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name, uid: o.metadata.uid, controller: true, blockOwnerDeletion: true });
    manager = new Manager({ kubeConfig: fake.kubeConfig(), logger: testLogger(), informer: FAST_INFORMER });
    const seen: string[] = [];
    new ControllerBuilder(manager, { name: 'mapping' })
      .for({ apiVersion: 'v1', kind: 'ConfigMap' }, { predicates: [generationChanged] })
      .owns({ apiVersion: 'v1', kind: 'Secret' })
      .watches({ apiVersion: 'v1', kind: 'Service' }, (svc) => [{ namespace: svc.metadata!.namespace, name: String(svc.metadata!.labels?.configmap) }])
      .complete({ reconcile: async (r) => { seen.push(r.name); } });
    await manager.start();
    await until('initial reconciles', () => seen.includes('owner-a') && seen.includes('owner-b'));
    await sleep(100);
    seen.length = 0;

    const secret = fake.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default', ownerReferences: [ref(a)] } });
    await until('owner a via secret', () => seen.includes('owner-a'));
    seen.length = 0;
    fake.put({ ...secret, metadata: { ...secret.metadata, ownerReferences: [ref(b)] } });
    await until('old and new owner', () => seen.includes('owner-a') && seen.includes('owner-b'));
    seen.length = 0;

    fake.put({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'default', labels: { configmap: 'owner-b' } }, spec: { ports: [{ port: 80 }] } });
    await until('mapped by watches()', () => seen.includes('owner-b'));
    seen.length = 0;

    // ConfigMaps have no generation: a label-only update does not pass generationChanged
    fake.put({ ...fake.get('v1', 'ConfigMap', 'default', 'owner-a'), metadata: { ...fake.get('v1', 'ConfigMap', 'default', 'owner-a').metadata, labels: { x: 'y' } } });
    owner('owner-c');
    await until('create passes the predicate', () => seen.includes('owner-c'));
    await sleep(100);
    expect(seen).toEqual(['owner-c']);
  });

  test('graceful shutdown waits for the in-flight reconcile and then takes no more work', async () => {
    fake = await startFakeApiServer();
    fake.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slow', namespace: 'default' } });
    manager = new Manager({ kubeConfig: fake.kubeConfig(), logger: testLogger(), informer: FAST_INFORMER, gracefulShutdownTimeoutMs: 5000 });
    let started = 0;
    let finished = 0;
    new ControllerBuilder(manager, { name: 'slow' }).for({ apiVersion: 'v1', kind: 'ConfigMap' }).complete({
      reconcile: async () => { started++; await new Promise((r) => setTimeout(r, 300)); finished++; },
    });
    await manager.start();
    await until('reconcile started', () => started === 1);
    const stopping = manager.stop();
    fake.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late', namespace: 'default' } });
    await stopping;
    expect(finished).toBe(1);
    expect(started).toBe(1);
  });
});
