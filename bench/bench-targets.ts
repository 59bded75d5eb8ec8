// Where the controller benchmark runs: the in-process fake apiserver (default), or the cluster of a
// kubeconfig (KUBECONFIG). Either way the driver creates the Foos and, where no kubelet makes pods
// available, plays the Deployment controller by marking each Deployment available.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'yaml';
import { KubeObject, loadDefaultKubeConfig, RestClient } from '../runtime';
import { FakeApiServer, RecordedRequest, startFakeApiServer } from '../test/fake-apiserver';

const ROOT = path.join(__dirname, '..');
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
  /** Every request the apiserver saw, when the target can tell (the fake can). */
  readonly requests?: ReadonlyArray<RecordedRequest>;
  close(): Promise<void>;
}

function foo(i: number, namespace: string): KubeObject {
  return { apiVersion: FOO.apiVersion, kind: FOO.kind, metadata: { name: `foo-${i}`, namespace }, spec: { deploymentName: `foo-${i}`, replicas: 1 } };
}

function availableStatus(d: KubeObject) {
  const replicas = (d.spec as any)?.replicas ?? 1;
  return { observedGeneration: d.metadata?.generation, replicas, readyReplicas: replicas, availableReplicas: replicas, updatedReplicas: replicas };
}

export async function fakeTarget(n: number): Promise<BenchTarget> {
  const crd = yaml.parse(fs.readFileSync(path.join(ROOT, 'controllers/foo/crd.yaml'), 'utf8'));
  const server: FakeApiServer = await startFakeApiServer({ crds: [crd], bookmarkIntervalMs: 5000, watchCacheWindow: Math.max(1000, n * 4) });
  const kubeconfig = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-')), 'kubeconfig');
  server.writeKubeconfig(kubeconfig);
  const marked = new Set<string>();
  let seen = 0;
  return {
    label: 'fake apiserver',
    kubeconfig,
    namespace: 'default',
    requests: server.requests,
    async createFoos(count) {
      for (let i = 0; i < count; i++) server.put(foo(i, 'default'));
    },
    async step(count) {
      // Direct store writes: they bypass the request log, which then holds only the controller's requests.
      for (const requests = server.requests; seen < requests.length; seen++) {
        const r = requests[seen];
        if (r.resource !== 'deployments' || !r.name || r.code >= 300 || marked.has(r.name) || !['create', 'update', 'patch'].includes(r.verb)) continue;
        const d = server.get('apps/v1', 'Deployment', r.namespace, r.name);
        if (!d) continue;
        server.put({ ...d, status: availableStatus(d) });
        marked.add(r.name);
      }
      let done = 0;
      for (let i = 0; i < count; i++) if (server.get(FOO.apiVersion, FOO.kind, 'default', `foo-${i}`)?.status?.availableReplicas === 1) done++;
      return done;
    },
    close: () => server.close(),
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
      await Promise.all(Array.from({ length: 32 }, async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) await client.create(foo(i, namespace));
      }));
    },
    async step() {
      if (options.simulateAvailability) {
        for (const d of (await client.list(DEPLOYMENT, { namespace })).items) {
          if ((d.status as any)?.availableReplicas) continue;
          await client.patch(DEPLOYMENT, d.metadata!.name!, namespace, { type: 'merge', body: { status: availableStatus(d) } }, { subresource: 'status' });
        }
      }
      return (await client.list(FOO, { namespace })).items.filter(f => (f.status as any)?.availableReplicas === 1).length;
    },
    async close() {
      await client.delete(NAMESPACE, namespace);
    },
  };
}
