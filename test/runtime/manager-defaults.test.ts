import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { KubeClient } from '../../runtime/client';
import { ControllerBuilder } from '../../runtime/controller';
import { silentLogger } from '../../runtime/log';
import { leaderElectionNamespace, Manager } from '../../runtime/manager';
import { RuntimeMetrics } from '../../runtime/metrics';

/** A client no test here reaches: wiring and start-up checks make no request. */
const noClient = new Proxy(
  {},
  {
    get: () => () => {
      throw new Error('no request expected');
    },
  },
) as unknown as KubeClient;
const manager = (options: ConstructorParameters<typeof Manager>[0] = {}) =>
  new Manager({ client: noClient, logger: silentLogger, metrics: new RuntimeMetrics(), ...options });

describe('Manager defaults', () => {
  test("a controller that sets no concurrency runs the manager's (the binary's --concurrency), else 1", () => {
    const FOO = { apiVersion: 'example.com/v1', kind: 'Foo', plural: 'foos' };
    const reconciler = { reconcile: async () => undefined };
    expect(
      new ControllerBuilder(manager({ concurrency: 3 }), { name: 'a' }).for(FOO).complete(reconciler).concurrency,
    ).toBe(3);
    expect(new ControllerBuilder(manager(), { name: 'b' }).for(FOO).complete(reconciler).concurrency).toBe(1);
    expect(
      new ControllerBuilder(manager({ concurrency: 3 }), { name: 'c' }).for(FOO).withConcurrency(5).complete(reconciler)
        .concurrency,
    ).toBe(5);
    expect(() => manager({ concurrency: 0 })).toThrow('concurrency: must be a positive integer, got 0');
  });

  test("the Lease namespace: POD_NAMESPACE, else the in-cluster ServiceAccount's; out of cluster without either, an error naming the fix", () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-'));
    try {
      const file = join(dir, 'namespace');
      expect(leaderElectionNamespace({ POD_NAMESPACE: 'op-system' }, file)).toBe('op-system');
      writeFileSync(file, 'mounted-ns\n');
      expect(leaderElectionNamespace({}, file)).toBe('mounted-ns');
      expect(() => leaderElectionNamespace({}, join(dir, 'missing'))).toThrow(
        /leader election: no namespace for the Lease; out of cluster, set --leader-election-namespace=<the operator's namespace>/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('out of cluster, --leader-elect without a namespace fails the start before anything listens or connects (it no longer retries in `default`)', async () => {
    const saved = process.env.POD_NAMESPACE;
    delete process.env.POD_NAMESPACE;
    try {
      const m = manager({ leaderElection: { leaseName: 'x-leader' }, metricsBindAddress: '127.0.0.1:0' });
      await expect(m.start()).rejects.toThrow(/--leader-election-namespace/);
    } finally {
      if (saved !== undefined) process.env.POD_NAMESPACE = saved;
    }
  });
});
