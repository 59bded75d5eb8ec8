import * as http from 'http';
import { FAST_INFORMER, sleep, testLogger, until } from './support';
import { ControllerBuilder } from '../../runtime/controller';
import { Manager, ManagerOptions } from '../../runtime/manager';
import { generationChanged } from '../../runtime/predicates';
import { staticCertificate } from '../../runtime/webhook/certificate-source';
import { describeRealApiServer, FaultProxy } from '../envtest';
import { localCertificates } from './webhook/support';

function get(address: string, path: string): Promise<{ status: number; body: string; type?: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`http://${address}${path}`, (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: res.headers['content-type'] }));
      })
      .on('error', reject);
  });
}

describeRealApiServer(
  'Manager probes, metrics and shutdown',
  (plane) => {
    let proxy: FaultProxy;
    let manager: Manager;
    let ns: string;
    /** Creates (or replaces) an object in the test's namespace as the admin. */
    const put = async (obj: any) => {
      const plural = { ConfigMap: 'configmaps', Secret: 'secrets', Service: 'services' }[obj.kind as string]!;
      const base = `/api/v1/namespaces/${ns}/${plural}`;
      const body = { ...obj, metadata: { ...obj.metadata, namespace: ns } };
      const r = body.metadata.resourceVersion
        ? await plane().request('PUT', `${base}/${obj.metadata.name}`, body)
        : await plane().request('POST', base, body);
      if (r.code >= 300) throw new Error(`${obj.kind} ${obj.metadata.name}: ${r.code} ${r.body?.message}`);
      return r.body;
    };
    /** A manager of the test's namespace, straight to the apiserver, with `options` besides. */
    const newManager = (options: Partial<ManagerOptions> = {}) =>
      new Manager({
        kubeConfig: plane().kubeConfig(),
        namespace: ns,
        logger: testLogger(),
        informer: FAST_INFORMER,
        ...options,
      });
    const getCm = async (name: string) =>
      (await plane().request('GET', `/api/v1/namespaces/${ns}/configmaps/${name}`)).body;

    beforeEach(async () => {
      proxy = await FaultProxy.start(plane());
      ns = await plane().createNamespace('manager-');
    });

    afterEach(async () => {
      await manager?.stop();
      await proxy.close();
    });

    test('/readyz fails until caches synced, /healthz passes, /metrics on its own port', async () => {
      await put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'existing' } });
      proxy.failNext({ verb: 'list', resource: 'configmaps', count: 1_000_000 }, 503);
      manager = new Manager({
        kubeConfig: proxy.kubeConfig(),
        namespace: ns,
        logger: testLogger(),
        informer: FAST_INFORMER,
        clientOptions: { retryBaseMs: 5, maxRetries: 1 },
        healthProbeBindAddress: '127.0.0.1:0',
        metricsBindAddress: '127.0.0.1:0',
      });
      let reconciled = 0;
      new ControllerBuilder(manager, { name: 'cm' }).for({ apiVersion: 'v1', kind: 'ConfigMap' }).complete({
        reconcile: async () => {
          reconciled++;
        },
      });
      const starting = manager.start();
      await until('probe server', () => manager.healthProbeAddress);
      expect((await get(manager.healthProbeAddress!, '/healthz')).status).toBe(200);
      const notReady = await get(manager.healthProbeAddress!, '/readyz');
      expect(notReady.status).toBe(500);
      expect(notReady.body).toMatch(/\[-\]informers-synced failed: not synced: v1\/ConfigMap/);
      expect(reconciled).toBe(0); // workers wait for the cache

      proxy.clear();
      await starting;
      expect((await get(manager.healthProbeAddress!, '/readyz')).status).toBe(200);
      expect((await get(manager.healthProbeAddress!, '/readyz/informers-synced?verbose')).body).toMatch(
        /\[\+\]informers-synced ok/,
      );
      expect((await get(manager.healthProbeAddress!, '/readyz/nope')).status).toBe(404);

      await until('reconciled existing configmaps', () => reconciled > 0);
      const metrics = await get(manager.metricsAddress!, '/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.type).toMatch(/text\/plain/);
      expect(metrics.body).toMatch(/^controller_runtime_reconcile_total\{controller="cm",result="success"\} \d+/m);
      expect(metrics.body).toMatch(
        /^rest_client_requests_total\{code="503",method="GET",host="127\.0\.0\.1:\d+"\} \d+/m,
      );
      expect(metrics.body).toMatch(/^controller_runtime_max_concurrent_reconciles\{controller="cm"\} 1/m);
      expect(manager.metricsAddress).not.toBe(manager.healthProbeAddress);
    });

    test('owns() maps old and new controller owners, watches() uses the map function, predicates filter', async () => {
      const owner = (name: string) => put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
      const a = await owner('owner-a');
      const b = await owner('owner-b');
      const ref = (o: any) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: o.metadata.name,
        uid: o.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      });
      manager = newManager();
      const seen: string[] = [];
      new ControllerBuilder(manager, { name: 'mapping' })
        .for({ apiVersion: 'v1', kind: 'ConfigMap' }, { predicates: [generationChanged] })
        .owns({ apiVersion: 'v1', kind: 'Secret' })
        .watches({ apiVersion: 'v1', kind: 'Service' }, (svc) => [
          { namespace: svc.metadata!.namespace, name: String(svc.metadata!.labels?.configmap) },
        ])
        .complete({
          reconcile: async (r) => {
            seen.push(r.name);
          },
        });
      await manager.start();
      await until('initial reconciles', () => seen.includes('owner-a') && seen.includes('owner-b'));
      await sleep(100);
      seen.length = 0;

      const secret = await put({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', ownerReferences: [ref(a)] },
      });
      await until('owner a via secret', () => seen.includes('owner-a'));
      seen.length = 0;
      await put({ ...secret, metadata: { ...secret.metadata, ownerReferences: [ref(b)] } });
      await until('old and new owner', () => seen.includes('owner-a') && seen.includes('owner-b'));
      seen.length = 0;

      await put({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'svc', labels: { configmap: 'owner-b' } },
        spec: { ports: [{ port: 80 }] },
      });
      await until('mapped by watches()', () => seen.includes('owner-b'));
      seen.length = 0;

      // ConfigMaps have no generation: a label-only update does not pass generationChanged
      const liveA = await getCm('owner-a');
      await put({ ...liveA, metadata: { ...liveA.metadata, labels: { x: 'y' } } });
      await owner('owner-c');
      await until('create passes the predicate', () => seen.includes('owner-c'));
      await sleep(100);
      expect(seen).toEqual(['owner-c']);
    });

    test('graceful shutdown waits for the in-flight reconcile and then takes no more work', async () => {
      await put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slow' } });
      manager = newManager({ gracefulShutdownTimeoutMs: 5000 });
      let started = 0;
      let finished = 0;
      new ControllerBuilder(manager, { name: 'slow' }).for({ apiVersion: 'v1', kind: 'ConfigMap' }).complete({
        reconcile: async () => {
          started++;
          await new Promise((r) => setTimeout(r, 300));
          finished++;
        },
      });
      await manager.start();
      await until('reconcile started', () => started === 1);
      const stopping = manager.stop();
      await put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } });
      await stopping;
      expect(finished).toBe(1);
      expect(started).toBe(1);
    });

    test('controllers take no more work while the webhook server waits out its shutdown delay', async () => {
      // Before, they stopped only after it: a replaced SampleDB operator went on reconciling for those 5 s and finished
      // the failover its successor was to take over.
      manager = newManager({
        gracefulShutdownTimeoutMs: 5000,
        webhookServer: {
          certificates: staticCertificate(localCertificates().serving),
          bindAddress: '127.0.0.1:0',
          shutdownDelayMs: 4000,
        },
      });
      const reconciled = new Set<string>();
      new ControllerBuilder(manager, { name: 'names' }).for({ apiVersion: 'v1', kind: 'ConfigMap' }).complete({
        reconcile: async ({ name }) => {
          reconciled.add(name!);
        },
      });
      await manager.start();
      await put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before' } });
      await until('the first ConfigMap reconciled', () => reconciled.has('before'));
      const stopping = manager.stop();
      await put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'during' } });
      await stopping;
      expect([...reconciled]).toEqual(['before']);
    });
  },
  { shared: true },
);
