/** Starts the fake apiserver with the Foo CRD and Foo controller managers against it. */
import { FakeApiServer, startFakeApiServer } from '../../fake-apiserver';
import { Manager, ManagerOptions } from '../../../runtime/manager';
import { setupFooController } from '../../../controllers/foo/controller';
import { Foo } from '../../../controllers/foo/types';
import { FAST_INFORMER, fooCrd, testLogger } from '../../runtime/support';

export const NS = 'default';

export async function startFake(opts: Parameters<typeof startFakeApiServer>[0] = {}): Promise<FakeApiServer> {
  return startFakeApiServer({ crds: [fooCrd()], ...opts });
}

/** A manager running the Foo controller with test timings. */
export async function startFooManager(fake: FakeApiServer, options: Partial<ManagerOptions> = {}, start = true): Promise<Manager> {
  const manager = new Manager({
    kubeConfig: fake.kubeConfig(),
    logger: testLogger(),
    informer: FAST_INFORMER,
    clientOptions: { retryBaseMs: 20, retryMaxMs: 2000 },
    gracefulShutdownTimeoutMs: 2000,
    onFatalError: (err) => { throw err; },
    ...options,
  });
  setupFooController(manager, { concurrency: 2, backoffBaseMs: 20 });
  if (start) await manager.start();
  return manager;
}

export function foo(name: string, deploymentName = name, replicas = 1): Foo {
  return { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name, namespace: NS }, spec: { deploymentName, replicas } };
}

/** Writes the controller made to deployments and foos (the test itself writes through fake.put, which is not logged). */
export function controllerWrites(fake: FakeApiServer, filter: { resource?: string; name?: string } = {}) {
  return fake.requests.filter((r) => ['create', 'update', 'patch', 'delete'].includes(r.verb)
    && (r.resource === 'deployments' || r.resource === 'foos')
    && (!filter.resource || r.resource === filter.resource)
    && (!filter.name || r.name === filter.name || (r.verb === 'create' && !r.name)));
}

/** Sets the Deployment's status like the deployment controller would. */
export function setAvailableReplicas(fake: FakeApiServer, name: string, availableReplicas: number): void {
  const d = fake.get('apps/v1', 'Deployment', NS, name);
  if (!d) throw new Error(`deployment ${name} does not exist`);
  fake.put({ ...d, status: { ...(d.status ?? {}), replicas: availableReplicas, readyReplicas: availableReplicas, availableReplicas } });
}
