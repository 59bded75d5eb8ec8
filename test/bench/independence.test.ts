/**
 * The side-by-side bench measures with its own means: the clock, the convergence predicate, the stand-in
 * that marks Deployments available and the end-state diff (bench/foo-world.ts) talk to the apiserver
 * through bench/plain-kube.ts (plain HTTPS) and read /proc (bench/proc-stats.ts), never through the
 * runtime under test. Checked here: by their imports, and on a real apiserver.
 */
import * as fs from 'fs';
import * as path from 'path';
import { createFoos, FooWorld } from '../../bench/foo-world';
import { PlainKube, PlainMirror, sortedJson } from '../../bench/plain-kube';
import { describeRealApiServer } from '../envtest';
import { fooCrd, until } from '../runtime/support';

const ROOT = path.join(__dirname, '../..');
const MEASURING_SIDE = ['bench/foo-world.ts', 'bench/plain-kube.ts', 'bench/proc-stats.ts'];

/** Every project file `file` reaches through relative imports (node: and package imports are not followed). */
function reachable(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  for (const m of text.matchAll(/(?:from|import|require\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const base = path.join(path.dirname(file), m[1]);
    const target = [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(path.join(ROOT, f)));
    if (!target) throw new Error(`${file}: cannot resolve ${m[1]}`);
    reachable(target, seen);
  }
  return seen;
}

describe('bench measuring side', () => {
  test.each(MEASURING_SIDE)('%s reaches no runtime, library or controller code', (file) => {
    const files = [...reachable(file)];
    expect(files.filter((f) => /^(runtime|lib|controllers|cli)\//.test(f))).toEqual([]);
    expect(files.every((f) => f.startsWith('bench/'))).toBe(true);
  });

  test('sortedJson orders keys at every level and drops undefined members', () => {
    expect(sortedJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[{"y":2,"z":1}]},"b":1}');
  });
});

describeRealApiServer(
  'bench driver over plain HTTPS',
  (plane) => {
    let kube: PlainKube;
    beforeAll(() => {
      kube = new PlainKube({ url: plane().url, token: plane().admin.token, ca: plane().ca });
    });
    afterAll(() => kube.close());

    test('the mirror follows creates, updates and deletes through its own watch', async () => {
      const seen: string[] = [];
      const mirror = new PlainMirror(kube, '/api/v1/namespaces/default/configmaps', (o) =>
        seen.push(`${o.metadata.name}:${o.metadata.resourceVersion}`),
      );
      await mirror.start();
      try {
        await kube.request('POST', '/api/v1/namespaces/default/configmaps', {
          metadata: { name: 'plain-a' },
          data: { x: '1' },
        });
        await until('create seen', () => (mirror.items.get('plain-a') as any)?.data?.x === '1');
        await kube.request(
          'PATCH',
          '/api/v1/namespaces/default/configmaps/plain-a',
          { data: { x: '2' } },
          'application/merge-patch+json',
        );
        await until('update seen', () => (mirror.items.get('plain-a') as any)?.data?.x === '2');
        await kube.request('DELETE', '/api/v1/namespaces/default/configmaps/plain-a');
        await until('delete seen', () => !mirror.items.has('plain-a'));
        expect(seen.filter((s) => s.startsWith('plain-a:')).length).toBeGreaterThanOrEqual(3);
        await expect(kube.request('GET', '/api/v1/namespaces/default/configmaps/plain-a')).rejects.toThrow('HTTP 404');
      } finally {
        mirror.stop();
      }
    });

    test("the clock stops only when every Foo reports its Deployment's available replicas; the end state lists both kinds", async () => {
      await createFoos(kube, 3);
      const world = new FooWorld(kube, 3);
      await world.start();
      try {
        const foos = (await kube.list('/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos')).items;
        // Play the controller by hand: the Deployments (the driver marks them available), then the Foos' status.
        for (const f of foos) {
          await kube.request('POST', '/apis/apps/v1/namespaces/default/deployments', {
            metadata: {
              name: f.spec.deploymentName,
              ownerReferences: [
                {
                  apiVersion: 'samplecontroller.k8s.io/v1alpha1',
                  kind: 'Foo',
                  name: f.metadata.name,
                  uid: f.metadata.uid,
                  controller: true,
                  blockOwnerDeletion: true,
                },
              ],
            },
            spec: {
              replicas: 1,
              selector: { matchLabels: { app: 'nginx', controller: f.metadata.name } },
              template: {
                metadata: { labels: { app: 'nginx', controller: f.metadata.name } },
                spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] },
              },
            },
          });
        }
        const deployments = '/apis/apps/v1/namespaces/default/deployments';
        await until('the driver marked every Deployment available', async () =>
          (await kube.list(deployments)).items.every((d) => d.status?.availableReplicas === 1),
        );
        for (const f of foos.slice(0, 2)) {
          await kube.request(
            'PATCH',
            `/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos/${f.metadata.name}/status`,
            { status: { availableReplicas: 1 } },
            'application/merge-patch+json',
          );
        }
        await until('two converged', () => world.convergedCount === 2);
        expect((await world.verify()).length).toBe(1);
        const converged = world.waitConverged(Date.now() + 15_000);
        await kube.request(
          'PATCH',
          `/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos/${foos[2].metadata.name}/status`,
          { status: { availableReplicas: 1 } },
          'application/merge-patch+json',
        );
        const { convergedAtMs } = await converged;
        expect(convergedAtMs).toBeLessThanOrEqual(Date.now());
        expect(await world.verify()).toEqual([]);
        const state = await world.endState();
        expect([...state.keys()].sort()).toEqual([
          'Deployment/foo-0',
          'Deployment/foo-1',
          'Deployment/foo-2',
          'Foo/foo-0',
          'Foo/foo-1',
          'Foo/foo-2',
        ]);
        expect(JSON.parse(state.get('Foo/foo-1')!)).toEqual({
          spec: { deploymentName: 'foo-1', replicas: 1 },
          status: { availableReplicas: 1 },
        });
      } finally {
        await world.stop();
      }
    });
  },
  { shared: true, crds: [fooCrd()] },
);
