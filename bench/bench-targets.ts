// Our controller alone on the cluster of a kubeconfig (KUBECONFIG): the driver creates the Foos and,
// where no kubelet makes pods available, plays the Deployment controller by marking each Deployment
// available. (The side-by-side benchmark on a fresh control plane is side-by-side.ts.)
import * as os from 'os';
import * as path from 'path';
import { KubeObject, loadDefaultKubeConfig, RestClient } from '../runtime';

export const FOO = { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', plural: 'foos' };
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' };
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces' };

export interface BenchTarget {
  /** e.g. `fake apiserver` or the cluster's server URL. */
  readonly label: string;
  readonly kubeconfig: string;
  readonly namespace: string;
  createFoos(n: number): Promise<void>;
  /** Marks new Deployments available (when no kubelet does) and returns how many Foos show it. */
  step(n: number): Promise<number>;
  /** Every request the apiserver saw, when the target can tell. */
  readonly requests?: ReadonlyArray<{
    verb: string;
    resource: string;
    subresource?: string;
    namespace?: string;
    name?: string;
    code: number;
  }>;
  close(): Promise<void>;
}

function foo(i: number, namespace: string): KubeObject {
  return {
    apiVersion: FOO.apiVersion,
    kind: FOO.kind,
    metadata: { name: `foo-${i}`, namespace },
    spec: { deploymentName: `foo-${i}`, replicas: 1 },
  };
}

function availableStatus(d: KubeObject) {
  const replicas = (d.spec as any)?.replicas ?? 1;
  return {
    observedGeneration: d.metadata?.generation,
    replicas,
    readyReplicas: replicas,
    availableReplicas: replicas,
    updatedReplicas: replicas,
  };
}

/** The cluster of `KUBECONFIG`; Foos go into a fresh namespace that is deleted afterwards. */
export async function clusterTarget(options: { simulateAvailability: boolean }): Promise<BenchTarget> {
  const kubeConfig = loadDefaultKubeConfig();
  const client = RestClient.fromKubeConfig(kubeConfig);
  const namespace = `foo-bench-${Date.now()}`;
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  return {
    label: kubeConfig.getCurrentCluster()?.server ?? 'cluster',
    kubeconfig: process.env.KUBECONFIG ?? path.join(os.homedir(), '.kube', 'config'),
    namespace,
    async createFoos(count) {
      const queue = Array.from({ length: count }, (_, i) => i);
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          for (let i = queue.shift(); i !== undefined; i = queue.shift()) await client.create(foo(i, namespace));
        }),
      );
    },
    async step() {
      if (options.simulateAvailability) {
        for (const d of (await client.list(DEPLOYMENT, { namespace })).items) {
          if ((d.status as any)?.availableReplicas) continue;
          await client.patch(
            DEPLOYMENT,
            d.metadata!.name!,
            namespace,
            { type: 'merge', body: { status: availableStatus(d) } },
            { subresource: 'status' },
          );
        }
      }
      return (await client.list(FOO, { namespace })).items.filter((f) => (f.status as any)?.availableReplicas === 1)
        .length;
    },
    async close() {
      await client.delete(NAMESPACE, namespace);
    },
  };
}
