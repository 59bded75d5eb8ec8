/**
 * The Foo controller on a real kube-apiserver with kube-controller-manager: Deployment status comes from the real
 * deployment controller (a stand-in kubelet runs the pods), garbage collection from the real GC. The controller
 * talks through a fault proxy that counts its writes and injects 409s, 429s and broken watches.
 */
import { Manager } from '../../../runtime/manager';
import { describeRealApiServer, FaultProxy } from '../../envtest';
import { FAST_INFORMER, fooCrd, sleep, until } from '../../runtime/support';
import { controllerWrites, foo, FOO_API, FooNamespace, startFooManager } from './harness';

const T = 30_000;

describeRealApiServer('Foo controller', (plane) => {
  let proxy: FaultProxy;
  let env: FooNamespace;
  const managers: Manager[] = [];

  beforeEach(async () => {
    proxy = await FaultProxy.start(plane());
  });

  /** A manager watching only the test's namespace (other tests' Foos stay out of its counts). */
  async function manager(options: Parameters<typeof startFooManager>[1] = {}, start = true) {
    const m = await startFooManager(proxy.kubeConfig(), { namespace: env.ns, ...options }, start);
    managers.push(m);
    return m;
  }

  afterEach(async () => {
    for (const m of managers.splice(0)) await m.stop();
    env?.stop();
    await proxy.close();
  });

  const writes = (filter: { resource?: string; name?: string } = {}) => controllerWrites(proxy, env.ns, filter);

  test('converges with one Deployment create and a status write per reported availableReplicas value (0 included), then makes zero writes', async () => {
    env = await FooNamespace.create(plane(), false);
    // resync every ~300 ms: every resync reconciles again, and must not write
    const mgr = await manager({ informer: { ...FAST_INFORMER, resyncPeriodMs: 300 } });
    await env.put(foo('example-foo'));
    const d = await until('deployment', () => env.getDeployment('example-foo'), T);
    const fooObj = await env.getFoo('example-foo');
    expect(d.metadata.ownerReferences).toEqual([{ apiVersion: FOO_API, kind: 'Foo', name: 'example-foo', uid: fooObj.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(d.spec.replicas).toBe(1);
    expect(d.spec.selector).toEqual({ matchLabels: { app: 'nginx', controller: 'example-foo' } });
    expect(d.spec.template.metadata.labels).toEqual({ app: 'nginx', controller: 'example-foo' });
    expect(d.spec.template.spec.containers.map((c: any) => [c.name, c.image])).toEqual([['nginx', 'nginx:latest']]);
    // the Deployment controller reported, nothing available yet: the Foo says so, like upstream's
    await until('status 0', async () => (await env.getFoo('example-foo'))?.status?.availableReplicas === 0, T);

    env.runPods = true;
    await until('status copied', async () => (await env.getFoo('example-foo'))?.status?.availableReplicas === 1, T);
    await sleep(300);
    expect(writes().map((w) => [w.verb, w.resource, w.subresource ?? '', w.code])).toEqual([
      ['create', 'deployments', '', 201], // not in the cache: a plain create, cheaper for the apiserver than an apply
      ['patch', 'foos', 'status', 200],
      ['patch', 'foos', 'status', 200],
    ]);

    // steady state: resyncs, re-listed watches and re-reconciles must not write
    const before = proxy.requests.length;
    const reconcilesBefore = await mgr.metrics.value('controller_runtime_reconcile_total', { controller: 'foo' });
    expect(proxy.dropWatches()).toBeGreaterThan(0);
    await sleep(1500);
    expect(proxy.requests.slice(before).filter((r) => !['list', 'watch', 'get'].includes(r.verb))).toEqual([]);
    expect(await mgr.metrics.value('controller_runtime_reconcile_total', { controller: 'foo' })).toBeGreaterThanOrEqual(reconcilesBefore + 2);
    // the Synced event was recorded (events.k8s.io)
    expect((await env.list('events.k8s.io/v1', 'Event')).map((e: any) => e.reason)).toContain('Synced');
  }, 60_000);

  test('updates the Deployment when replicas differ and copies a changed availableReplicas', async () => {
    env = await FooNamespace.create(plane());
    await manager();
    await env.put(foo('scaler', 'scaler-deploy', 1));
    await until('deployment', () => env.getDeployment('scaler-deploy'), T);
    await env.mergePatch(FOO_API, 'Foo', 'scaler', { spec: { replicas: 3 } });
    await until('scaled', async () => (await env.getDeployment('scaler-deploy'))?.spec?.replicas === 3, T);
    await until('status 3', async () => (await env.getFoo('scaler'))?.status?.availableReplicas === 3, T);
    await env.mergePatch(FOO_API, 'Foo', 'scaler', { spec: { replicas: 2 } });
    await until('status 2', async () => (await env.getFoo('scaler'))?.status?.availableReplicas === 2, T);
    await sleep(200);
    expect(writes({ resource: 'deployments' })).toHaveLength(3);
    expect(writes().every((w) => w.code < 300)).toBe(true);
  }, 60_000);

  test('refuses to adopt a Deployment it does not own (ErrResourceExists event, retried)', async () => {
    env = await FooNamespace.create(plane(), false);
    await env.put({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'taken' }, spec: { replicas: 5, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'x', image: 'x' }] } } } });
    const mgr = await manager();
    await env.put(foo('intruder', 'taken'));
    const warning = await until('warning event', async () => (await env.list('events.k8s.io/v1', 'Event')).find((e: any) => e.reason === 'ErrResourceExists'), T);
    expect(warning).toMatchObject({ type: 'Warning', note: 'Resource "taken" already exists and is not managed by Foo' });
    await until('retried', async () => (await mgr.metrics.value('controller_runtime_reconcile_errors_total', { controller: 'foo' })) >= 2, T);
    expect(writes()).toEqual([]);
    const d = await env.getDeployment('taken');
    expect(d.spec.replicas).toBe(5);
    expect(d.metadata.ownerReferences).toBeUndefined();
  }, 60_000);

  test('converges through a 409 storm on every write', async () => {
    env = await FooNamespace.create(plane());
    await manager();
    proxy.failNext({ verb: 'create', resource: 'deployments', count: 8 }, 409);
    proxy.failNext({ verb: 'patch', resource: 'foos', count: 8 }, 409);
    await env.put(foo('stormy'));
    await until('deployment', () => env.getDeployment('stormy'), T);
    await until('status', async () => (await env.getFoo('stormy'))?.status?.availableReplicas === 1, T);
    const ok = writes().filter((w) => w.code < 300);
    expect(ok.filter((w) => w.resource === 'deployments')).toHaveLength(1);
    expect(ok.filter((w) => w.resource === 'foos').length).toBeGreaterThanOrEqual(1);
    expect(writes().filter((w) => w.code === 409 && w.injected)).toHaveLength(16);
  }, 60_000);

  test('honours Retry-After on 429', async () => {
    env = await FooNamespace.create(plane());
    await manager();
    proxy.failNext({ verb: 'create', resource: 'deployments', count: 1 }, 429, { retryAfterSeconds: 1 });
    const started = Date.now();
    await env.put(foo('throttled'));
    await until('deployment', () => env.getDeployment('throttled'), T);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(writes({ resource: 'deployments' }).map((w) => w.code)).toEqual([429, 201]);
  }, 60_000);

  test('an apiserver restart in the middle of convergence: every Foo still converges, one Deployment each', async () => {
    // Sized so that the fault lands while Foos are converging, and asserted: some have converged, not all.
    const N = 120;
    env = await FooNamespace.create(plane());
    for (let i = 0; i < N; i++) await env.put(foo(`mid-${i}`));
    const converged = async () => (await env.list(FOO_API, 'Foo')).filter((f: any) => f.status?.availableReplicas === 1).length;
    await manager();
    await until('the first Foo converged', async () => (await converged()) > 0, T, 10);
    const atFault = await converged();
    await plane().restartApiServer({ downMs: 500 });
    expect({ atFault, midConvergence: atFault > 0 && atFault < N }).toStrictEqual({ atFault, midConvergence: true });
    await until(`all ${N} converged after the restart`, async () => (await converged()) === N, 90_000, 250);
    const deployments = await env.list('apps/v1', 'Deployment');
    expect(deployments).toHaveLength(N);
    expect(deployments.every((d: any) => d.metadata.ownerReferences?.length === 1)).toBe(true);
    await env.put(foo('after'));
    await until('deployment after', () => env.getDeployment('after'), T);
  }, 180_000);

  test('a crash mid-reconcile and a restart converge without duplicate owned objects', async () => {
    env = await FooNamespace.create(plane());
    // First process: creates the Deployment, then "crashes" before the status write.
    const first = await manager({}, false);
    const realPatch = first.client.patch.bind(first.client);
    first.client.patch = async (...args: Parameters<typeof realPatch>) => {
      if (args[4]?.subresource === 'status') throw new Error('process crashed');
      return realPatch(...args);
    };
    await first.start();
    await env.put(foo('crashy'));
    await until('deployment', () => env.getDeployment('crashy'), T);
    await until('crash', async () => (await first.metrics.value('controller_runtime_reconcile_errors_total')) >= 1, T);
    await first.stop();
    managers.splice(managers.indexOf(first), 1);

    const second = await manager();
    await until('status after restart', async () => (await env.getFoo('crashy'))?.status?.availableReplicas === 1, T);
    await sleep(200);
    const deployments = (await second.client.list({ apiVersion: 'apps/v1', kind: 'Deployment' }, { namespace: env.ns })).items;
    expect(deployments.map((d) => d.metadata!.name)).toEqual(['crashy']);
    expect(deployments[0].metadata!.ownerReferences).toHaveLength(1);
  }, 60_000);

  test('deleting a Foo stops reconciling it; its Deployment is garbage-collected', async () => {
    env = await FooNamespace.create(plane());
    const mgr = await manager();
    await env.put(foo('short-lived'));
    await until('deployment', () => env.getDeployment('short-lived'), T);
    await mgr.client.delete({ apiVersion: FOO_API, kind: 'Foo', plural: 'foos' }, 'short-lived', env.ns);
    await until('gc', async () => !(await env.getDeployment('short-lived')), T);
    await sleep(200);
    expect(writes({ resource: 'deployments' })).toHaveLength(1);
  }, 60_000);
}, { crds: [fooCrd()], controllerManager: true });
