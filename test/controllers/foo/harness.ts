/** The Foo controller on a real control plane: a namespace per test, a stand-in kubelet, managers through a fault proxy. */
import type { KubeConfig } from '@kubernetes/client-node';
import { setupFooController } from '../../../controllers/foo/controller';
import { Foo } from '../../../controllers/foo/types';
import { Manager, ManagerOptions } from '../../../runtime/manager';
import { ControlPlane, FaultProxy, TestNamespace } from '../../envtest';
import { testManager } from '../../runtime/support';

export const FOO_API = 'samplecontroller.k8s.io/v1alpha1';

/** A manager running the Foo controller with test timings. */
export async function startFooManager(
  kubeConfig: KubeConfig,
  options: Partial<ManagerOptions> = {},
  start = true,
): Promise<Manager> {
  const manager = testManager({ kubeConfig, ...options });
  setupFooController(manager, { concurrency: 2, backoffBaseMs: 20 });
  if (start) await manager.start();
  return manager;
}

export function foo(name: string, deploymentName = name, replicas = 1): Foo {
  return { apiVersion: FOO_API, kind: 'Foo', metadata: { name }, spec: { deploymentName, replicas } };
}

/** A test's namespace whose Deployment pods run (and so become available) while `runPods` is set, except `held` ones. */
export class FooNamespace extends TestNamespace {
  static async create(
    plane: ControlPlane,
    runPods = true,
    held: (pod: any) => boolean = () => false,
  ): Promise<FooNamespace> {
    return new FooNamespace(plane, await plane.createNamespace('foo-'), runPods, held);
  }

  private constructor(
    plane: ControlPlane,
    ns: string,
    public runPods: boolean,
    held: (pod: any) => boolean,
  ) {
    super(plane, ns, (pod) => (this.runPods && !held(pod) ? 'Running' : 'Pending'));
  }

  getFoo(name: string): Promise<any> {
    return this.get(FOO_API, 'Foo', name);
  }

  getDeployment(name: string): Promise<any> {
    return this.get('apps/v1', 'Deployment', name);
  }
}

/** Writes the controller sent through the proxy to Deployments and Foos of a namespace (with the code it got). */
export function controllerWrites(proxy: FaultProxy, ns: string, filter: { resource?: string; name?: string } = {}) {
  return proxy.requests.filter(
    (r) =>
      ['create', 'update', 'patch', 'delete'].includes(r.verb) &&
      r.namespace === ns &&
      (r.resource === 'deployments' || r.resource === 'foos') &&
      (!filter.resource || r.resource === filter.resource) &&
      (!filter.name || r.name === filter.name || (r.verb === 'create' && !r.name)),
  );
}
