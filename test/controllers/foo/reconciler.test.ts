import { parseFlags } from '../../../controllers/foo/main';
import { FooReconciler, messageResourceExists, newDeployment } from '../../../controllers/foo/reconciler';
import { ObjectCache } from '../../../runtime/cache';
import { TerminalError } from '../../../runtime/errors';
import { EventInput } from '../../../runtime/events';
import { KubeObject } from '../../../runtime/resource';
import { storeOf } from '../../../runtime/store';
import { MemoryClient } from '../../runtime/memory-client';

const fooObj = (spec: object, status?: object): KubeObject => ({
  apiVersion: 'samplecontroller.k8s.io/v1alpha1',
  kind: 'Foo',
  metadata: { namespace: 'ns', name: 'example-foo', uid: 'foo-uid', resourceVersion: '1', generation: 1 },
  spec,
  ...(status ? { status } : {}),
});

function setup(foo: KubeObject, deployment?: KubeObject) {
  const client = new MemoryClient();
  const foos = new ObjectCache();
  const deployments = new ObjectCache();
  foos.upsert(client.seed(foo));
  if (deployment) deployments.upsert(client.seed(deployment));
  const events: EventInput[] = [];
  const reconciler = new FooReconciler({
    client,
    foos: storeOf(foos),
    deployments: storeOf(deployments),
    recorder: {
      event: async (_o, e) => {
        events.push(e);
      },
    },
  });
  return { client, foos, deployments, events, reconciler };
}

describe('FooReconciler', () => {
  test('newDeployment matches upstream sample-controller', () => {
    const d = newDeployment(fooObj({ deploymentName: 'dep', replicas: 2 }) as any);
    expect(d).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'dep',
        namespace: 'ns',
        ownerReferences: [
          {
            apiVersion: 'samplecontroller.k8s.io/v1alpha1',
            kind: 'Foo',
            name: 'example-foo',
            uid: 'foo-uid',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'nginx', controller: 'example-foo' } },
        template: {
          metadata: { labels: { app: 'nginx', controller: 'example-foo' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] },
        },
      },
    });
  });

  test('an empty deploymentName is a terminal error', async () => {
    const { reconciler, client } = setup(fooObj({ replicas: 1 }));
    await expect(reconciler.reconcile({ namespace: 'ns', name: 'example-foo' })).rejects.toBeInstanceOf(TerminalError);
    expect(client.writes()).toEqual([]);
  });

  test('a missing Foo is done without requests', async () => {
    const { reconciler, client } = setup(fooObj({ deploymentName: 'd' }));
    await reconciler.reconcile({ namespace: 'ns', name: 'other' });
    expect(client.calls).toEqual([]);
  });

  test('refuses a Deployment controlled by something else, with a Warning event', async () => {
    const { reconciler, client, events } = setup(fooObj({ deploymentName: 'd', replicas: 1 }), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { namespace: 'ns', name: 'd' },
      spec: { replicas: 1 },
    });
    await expect(reconciler.reconcile({ namespace: 'ns', name: 'example-foo' })).rejects.toThrow(
      `ns/example-foo: ${messageResourceExists('d')}`,
    );
    expect(events).toEqual([
      {
        type: 'Warning',
        reason: 'ErrResourceExists',
        action: 'Reconcile',
        note: 'Resource "d" already exists and is not managed by Foo',
      },
    ]);
    expect(client.writes()).toEqual([]);
  });

  test('creates the Deployment (POST, its status not reported yet: no status write) and records one Synced event', async () => {
    const { reconciler, client, events } = setup(fooObj({ deploymentName: 'd', replicas: 1 }));
    await reconciler.reconcile({ namespace: 'ns', name: 'example-foo' });
    expect(client.writes().map((w) => [w.verb, w.kind, w.patchType])).toEqual([['create', 'Deployment', undefined]]);
    expect(client.stored('Deployment', 'ns/d')!.metadata!.ownerReferences![0].uid).toBe('foo-uid');
    expect(events.map((e) => e.reason)).toEqual(['Synced']);
  });

  test('once the Deployment is reported on, copies availableReplicas (0 included, like upstream) without an event, then writes nothing', async () => {
    const foo = fooObj({ deploymentName: 'd', replicas: 2 });
    const first = setup(foo);
    await first.reconciler.reconcile({ namespace: 'ns', name: 'example-foo' });
    const created = first.client.stored('Deployment', 'ns/d')!;

    const none = setup(foo, { ...created, status: { observedGeneration: 1, replicas: 2, unavailableReplicas: 2 } });
    await none.reconciler.reconcile({ namespace: 'ns', name: 'example-foo' });
    expect(none.client.writes()).toEqual([
      {
        verb: 'patch',
        kind: 'Foo',
        key: 'ns/example-foo',
        patchType: 'merge',
        subresource: 'status',
        body: { status: { availableReplicas: 0 } },
      },
    ]);
    expect(none.events).toEqual([]);

    const { client, reconciler, events } = setup(foo, {
      ...created,
      status: { observedGeneration: 1, availableReplicas: 2 },
    });
    await reconciler.reconcile({ namespace: 'ns', name: 'example-foo' });
    expect(client.writes()).toEqual([
      {
        verb: 'patch',
        kind: 'Foo',
        key: 'ns/example-foo',
        patchType: 'merge',
        subresource: 'status',
        body: { status: { availableReplicas: 2 } },
      },
    ]);
    expect(events).toEqual([]);

    const steady = setup(fooObj({ deploymentName: 'd', replicas: 2 }, { availableReplicas: 2 }), {
      ...created,
      status: { observedGeneration: 1, availableReplicas: 2 },
    });
    await steady.reconciler.reconcile({ namespace: 'ns', name: 'example-foo' });
    expect(steady.client.writes()).toEqual([]);
    expect(steady.events).toEqual([]);
  });

  test('a changed spec.replicas is applied (server-side apply) with a Synced event', async () => {
    const first = setup(fooObj({ deploymentName: 'd', replicas: 1 }));
    await first.reconciler.reconcile({ namespace: 'ns', name: 'example-foo' });
    const created = first.client.stored('Deployment', 'ns/d')!;
    const { client, reconciler, events } = setup(
      fooObj({ deploymentName: 'd', replicas: 3 }, { availableReplicas: 1 }),
      { ...created, status: { observedGeneration: 1, availableReplicas: 1 } },
    );
    await reconciler.reconcile({ namespace: 'ns', name: 'example-foo' });
    expect(client.writes().map((w) => [w.verb, w.kind, w.patchType])).toEqual([['patch', 'Deployment', 'apply']]);
    expect((client.stored('Deployment', 'ns/d')!.spec as any).replicas).toBe(3);
    expect(events.map((e) => e.reason)).toEqual(['Synced']);
  });
});

describe('FooReconciler under a controller (a per-reconcile client whose writes the store does not show yet)', () => {
  test("writes go through the context's client; after a write the status comes from the server's answer, not the stale store", async () => {
    const first = setup(fooObj({ deploymentName: 'd', replicas: 1 }));
    await first.reconciler.reconcile({ namespace: 'ns', name: 'example-foo' });
    const created = first.client.stored('Deployment', 'ns/d')!;
    // The store still has the Deployment as it was (1 available); the server's answer to the apply reports 2.
    const { client, foos, deployments } = setup(
      fooObj({ deploymentName: 'd', replicas: 3 }, { availableReplicas: 1 }),
      { ...created, status: { observedGeneration: 1, availableReplicas: 1 } },
    );
    const stored = client.stored('Deployment', 'ns/d')!;
    client.seed({ ...stored, status: { observedGeneration: 1, availableReplicas: 2 } });
    const refusing = new Proxy(client, {
      get: (target, prop) =>
        ['create', 'patch', 'replace', 'replaceStatus'].includes(String(prop))
          ? () => {
              throw new Error('deps.client used');
            }
          : (target as any)[prop],
    });
    const reconciler = new FooReconciler({ client: refusing, foos: storeOf(foos), deployments: storeOf(deployments) });
    await reconciler.reconcile({ namespace: 'ns', name: 'example-foo' }, { client });
    expect(client.writes().map((w) => [w.verb, w.kind, w.patchType, w.subresource])).toEqual([
      ['patch', 'Deployment', 'apply', undefined],
      ['patch', 'Foo', 'merge', 'status'],
    ]);
    expect((client.stored('Foo', 'ns/example-foo')!.status as any).availableReplicas).toBe(2);
  });
});

describe('foo controller flags', () => {
  test('defaults', () => {
    expect(parseFlags([], {})).toEqual({
      leaderElect: false,
      leaderElectionNamespace: undefined,
      metricsBindAddress: ':8080',
      healthProbeBindAddress: ':8081',
      webhookBindAddress: ':9443',
      concurrency: 8,
      namespaces: undefined,
      shardingRing: undefined,
      shardingKey: 'uid',
      shardingAssignment: undefined,
      shardingLabelWebhook: false,
    });
  });

  test('flags and WATCH_NAMESPACE', () => {
    expect(
      parseFlags(
        ['--leader-elect', '--metrics-bind-address=:9090', '--health-probe-bind-address', '0', '--concurrency=4'],
        { WATCH_NAMESPACE: 'team-a' },
      ),
    ).toEqual({
      leaderElect: true,
      leaderElectionNamespace: undefined,
      metricsBindAddress: ':9090',
      healthProbeBindAddress: '0',
      webhookBindAddress: ':9443',
      concurrency: 4,
      namespaces: ['team-a'],
      shardingRing: undefined,
      shardingKey: 'uid',
      shardingAssignment: undefined,
      shardingLabelWebhook: false,
    });
    expect(parseFlags([], { WATCH_NAMESPACE: 'team-a,team-b' }).namespaces).toEqual(['team-a', 'team-b']);
    expect(() => parseFlags([], { WATCH_NAMESPACE: 'team-a,Team_B' })).toThrow(
      "WATCH_NAMESPACE: 'Team_B' is not a namespace name (a DNS label), in 'team-a,Team_B'",
    );
    expect(parseFlags(['--leader-elect=false'], {}).leaderElect).toBe(false);
  });

  test('fails on bad flags', () => {
    expect(() => parseFlags(['--nope'], {})).toThrow(/unknown flag '--nope'/);
    expect(() => parseFlags(['--concurrency=0'], {})).toThrow(/--concurrency must be a positive integer, got '0'/);
    expect(() => parseFlags(['--leader-elect=maybe'], {})).toThrow(/got 'maybe'/);
    expect(() => parseFlags(['--sharding-assignment=label'], {})).toThrow(
      "--sharding-assignment must be labels, hash, server, got 'label'",
    );
  });

  test('sharding flags', () => {
    const flags = parseFlags(['--sharding-ring=foo', '--sharding-key=namespace', '--sharding-assignment=server'], {});
    expect(flags).toMatchObject({ shardingRing: 'foo', shardingKey: 'namespace', shardingAssignment: 'server' });
    expect(flags.shardingRanges).toBeUndefined();
    expect(flags.shardingReplicas).toBeUndefined();
    expect(parseFlags(['--sharding-ring=foo', '--sharding-replicas=3'], {}).shardingReplicas).toBe(3);
    expect(() => parseFlags(['--sharding-replicas=0'], {})).toThrow(
      "--sharding-replicas must be a positive integer, got '0'",
    );
    expect(parseFlags(['--sharding-ring=foo', '--sharding-ranges=namespaces'], {}).shardingRanges).toBe('namespaces');
    expect(() => parseFlags(['--sharding-ranges=tenants'], {})).toThrow(
      "--sharding-ranges must be even or namespaces, got 'tenants'",
    );
    expect(parseFlags(['--sharding-ring=foo', '--sharding-label-webhook'], {}).shardingLabelWebhook).toBe(true);
    expect(parseFlags(['--sharding-ring=foo', '--sharding-label-webhook=false'], {}).shardingLabelWebhook).toBe(false);
    expect(() => parseFlags(['--sharding-label-webhook'], {})).toThrow(
      '--sharding-label-webhook needs --sharding-ring (the webhook labels objects with their member)',
    );
    expect(() => parseFlags(['--sharding-ring=foo', '--sharding-label-webhook=yes'], {})).toThrow(
      "--sharding-label-webhook must be true or false, got 'yes'",
    );
  });
});
