import { FakeApiServer } from '../../fake-apiserver';
import { Manager } from '../../../runtime/manager';
import { controllerWrites, foo, NS, setAvailableReplicas, startFake, startFooManager } from './harness';
import { FAST_INFORMER, sleep, until } from '../../runtime/support';

describe('Foo controller against the fake apiserver', () => {
  let fake: FakeApiServer;
  const managers: Manager[] = [];

  async function manager(...args: Parameters<typeof startFooManager> extends [any, ...infer R] ? R : never) {
    const m = await startFooManager(fake, ...args);
    managers.push(m);
    return m;
  }

  afterEach(async () => {
    for (const m of managers.splice(0)) await m.stop();
    await fake?.close();
  });

  test('converges with exactly one Deployment write and one status write, then makes zero writes', async () => {
    fake = await startFake();
    // resync every ~300 ms: every resync reconciles again, and must not write
    const mgr = await manager({ informer: { ...FAST_INFORMER, resyncPeriodMs: 300 } });
    fake.put(foo('example-foo'));
    const d = await until('deployment', () => fake.get('apps/v1', 'Deployment', NS, 'example-foo'));
    const fooObj = fake.get('samplecontroller.k8s.io/v1alpha1', 'Foo', NS, 'example-foo');
    expect(d.metadata.ownerReferences).toEqual([{ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', name: 'example-foo', uid: fooObj.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(d.spec.replicas).toBe(1);
    expect(d.spec.selector).toEqual({ matchLabels: { app: 'nginx', controller: 'example-foo' } });
    expect(d.spec.template.metadata.labels).toEqual({ app: 'nginx', controller: 'example-foo' });
    expect(d.spec.template.spec.containers.map((c: any) => [c.name, c.image])).toEqual([['nginx', 'nginx:latest']]);

    setAvailableReplicas(fake, 'example-foo', 1);
    await until('status copied', () => fake.get('samplecontroller.k8s.io/v1alpha1', 'Foo', NS, 'example-foo')?.status?.availableReplicas === 1);
    await sleep(300);
    const writes = controllerWrites(fake);
    expect(writes.map((w) => [w.verb, w.resource, w.subresource ?? ''])).toEqual([
      ['patch', 'deployments', ''],
      ['patch', 'foos', 'status'],
    ]);
    expect(writes.every((w) => w.code < 300)).toBe(true);

    // steady state: resyncs, bookmarks and re-reconciles must not write
    const before = fake.requests.length;
    const reconcilesBefore = await mgr.metrics.value('controller_runtime_reconcile_total', { controller: 'foo' });
    fake.faults.dropWatches(); // forces reconnects; still no writes
    await sleep(1500);
    const steady = fake.requests.slice(before).filter((r) => !['list', 'watch', 'get'].includes(r.verb));
    expect(steady).toEqual([]);
    expect(await mgr.metrics.value('controller_runtime_reconcile_total', { controller: 'foo' })).toBeGreaterThanOrEqual(reconcilesBefore + 2);
    // the Synced event was recorded (events.k8s.io)
    expect(fake.requests.some((r) => r.resource === 'events' && r.verb === 'create')).toBe(true);
  });

  test('updates the Deployment when replicas differ and copies a changed availableReplicas', async () => {
    fake = await startFake();
    await manager();
    fake.put(foo('scaler', 'scaler-deploy', 1));
    await until('deployment', () => fake.get('apps/v1', 'Deployment', NS, 'scaler-deploy'));
    const f = fake.get('samplecontroller.k8s.io/v1alpha1', 'Foo', NS, 'scaler');
    fake.put({ ...f, spec: { ...f.spec, replicas: 3 } });
    await until('scaled', () => fake.get('apps/v1', 'Deployment', NS, 'scaler-deploy')?.spec?.replicas === 3);
    setAvailableReplicas(fake, 'scaler-deploy', 3);
    await until('status 3', () => fake.get('samplecontroller.k8s.io/v1alpha1', 'Foo', NS, 'scaler')?.status?.availableReplicas === 3);
    setAvailableReplicas(fake, 'scaler-deploy', 2);
    await until('status 2', () => fake.get('samplecontroller.k8s.io/v1alpha1', 'Foo', NS, 'scaler')?.status?.availableReplicas === 2);
    await sleep(200);
    expect(controllerWrites(fake, { resource: 'deployments' })).toHaveLength(2);
    expect(controllerWrites(fake, { resource: 'foos' })).toHaveLength(2);
  });

  test('refuses to adopt a Deployment it does not own (ErrResourceExists event, retried)', async () => {
    fake = await startFake();
    fake.put({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'taken', namespace: NS }, spec: { replicas: 5, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'x', image: 'x' }] } } } });
    const mgr = await manager();
    fake.put(foo('intruder', 'taken'));
    await until('warning event', () => fake.requests.some((r) => r.resource === 'events' && r.verb === 'create'));
    await until('retried', async () => (await mgr.metrics.value('controller_runtime_reconcile_errors_total', { controller: 'foo' })) >= 2);
    expect(controllerWrites(fake)).toEqual([]);
    const d = fake.get('apps/v1', 'Deployment', NS, 'taken');
    expect(d.spec.replicas).toBe(5);
    expect(d.metadata.ownerReferences).toBeUndefined();
  });

  test('converges through a 409 storm on every write', async () => {
    fake = await startFake();
    await manager();
    fake.faults.failNext({ verb: 'patch', resource: 'deployments', count: 8 }, 409);
    fake.faults.failNext({ verb: 'patch', resource: 'foos', count: 8 }, 409);
    fake.put(foo('stormy'));
    await until('deployment', () => fake.get('apps/v1', 'Deployment', NS, 'stormy'), 15_000);
    setAvailableReplicas(fake, 'stormy', 1);
    await until('status', () => fake.get('samplecontroller.k8s.io/v1alpha1', 'Foo', NS, 'stormy')?.status?.availableReplicas === 1, 15_000);
    const ok = controllerWrites(fake).filter((w) => w.code < 300);
    expect(ok.map((w) => w.resource)).toEqual(['deployments', 'foos']);
    expect(controllerWrites(fake).filter((w) => w.code === 409)).toHaveLength(16);
  });

  test('honours Retry-After on 429', async () => {
    fake = await startFake();
    await manager();
    fake.faults.failNext({ verb: 'patch', resource: 'deployments', count: 1 }, 429, { retryAfterSeconds: 1 });
    const started = Date.now();
    fake.put(foo('throttled'));
    await until('deployment', () => fake.get('apps/v1', 'Deployment', NS, 'throttled'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(controllerWrites(fake, { resource: 'deployments' }).map((w) => w.code)).toEqual([429, expect.any(Number)]);
  });

  test('keeps working across an apiserver restart', async () => {
    fake = await startFake();
    await manager();
    fake.put(foo('before'));
    await until('deployment before', () => fake.get('apps/v1', 'Deployment', NS, 'before'));
    await fake.restart({ downMs: 500 });
    fake.put(foo('after'));
    await until('deployment after', () => fake.get('apps/v1', 'Deployment', NS, 'after'), 10_000);
  });

  test('a crash mid-reconcile and a restart converge without duplicate owned objects', async () => {
    fake = await startFake();
    // First process: creates the Deployment, then "crashes" before the status write.
    const first = await manager({}, false);
    const realPatch = first.client.patch.bind(first.client);
    first.client.patch = async (...args: Parameters<typeof realPatch>) => {
      if (args[4]?.subresource === 'status') throw new Error('process crashed');
      return realPatch(...args);
    };
    await first.start();
    fake.put(foo('crashy'));
    await until('deployment', () => fake.get('apps/v1', 'Deployment', NS, 'crashy'));
    setAvailableReplicas(fake, 'crashy', 1);
    await until('crash', async () => (await first.metrics.value('controller_runtime_reconcile_errors_total')) >= 1);
    await first.stop();
    managers.splice(managers.indexOf(first), 1);

    const second = await manager();
    await until('status after restart', () => fake.get('samplecontroller.k8s.io/v1alpha1', 'Foo', NS, 'crashy')?.status?.availableReplicas === 1);
    await sleep(200);
    const deployments = (await second.client.list({ apiVersion: 'apps/v1', kind: 'Deployment' }, { namespace: NS })).items;
    expect(deployments.map((d) => d.metadata!.name)).toEqual(['crashy']);
    expect(deployments[0].metadata!.ownerReferences).toHaveLength(1);
  });

  test('deleting a Foo stops reconciling it; its Deployment is garbage-collected', async () => {
    fake = await startFake({ gc: true });
    const mgr = await manager();
    fake.put(foo('short-lived'));
    await until('deployment', () => fake.get('apps/v1', 'Deployment', NS, 'short-lived'));
    await mgr.client.delete({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', plural: 'foos' }, 'short-lived', NS);
    await until('gc', () => !fake.get('apps/v1', 'Deployment', NS, 'short-lived'), 5000);
    await sleep(200);
    expect(controllerWrites(fake, { resource: 'deployments' })).toHaveLength(1);
  });
});
