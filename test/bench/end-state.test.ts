import { endStateDifferences, fooNamespace, normalizedEndState } from '../../bench/foo-world';
import { KubeObject } from '../../runtime/resource';

const foo = (name: string, uid: string, available = 1): KubeObject => ({
  apiVersion: 'samplecontroller.k8s.io/v1alpha1',
  kind: 'Foo',
  metadata: {
    name,
    namespace: 'default',
    uid,
    resourceVersion: String(Math.random()),
    creationTimestamp: new Date().toISOString(),
  },
  spec: { deploymentName: name, replicas: 1 },
  status: { availableReplicas: available },
});
const deployment = (
  name: string,
  ownerUid: string,
  extra: { annotations?: Record<string, string>; image?: string } = {},
): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name,
    namespace: 'default',
    uid: `d-${Math.random()}`,
    resourceVersion: String(Math.random()),
    annotations: extra.annotations,
    ownerReferences: [
      {
        apiVersion: 'samplecontroller.k8s.io/v1alpha1',
        kind: 'Foo',
        name,
        uid: ownerUid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  },
  spec: { replicas: 1, template: { spec: { containers: [{ name: 'nginx', image: extra.image ?? 'nginx:latest' }] } } },
  status: { availableReplicas: 1, observedGeneration: 1 },
});

describe("bench end-state diff (Go's runs against ours, object by object)", () => {
  test('equal where only uids, versions, timestamps and the known annotations differ', () => {
    const go = normalizedEndState(
      [foo('a', 'u1')],
      [deployment('a', 'u1', { annotations: { 'deployment.kubernetes.io/revision': '1' } })],
    );
    const ours = normalizedEndState(
      [foo('a', 'u2')],
      [deployment('a', 'u2', { annotations: { 'cdk8s-operator.io/applied-hash': 'abc' } })],
    );
    expect(go.size).toBe(2);
    expect(endStateDifferences(go, ours)).toStrictEqual([]);
  });

  test('names every object that differs: spec, status, annotations, a missing object', () => {
    const go = normalizedEndState([foo('a', 'u1'), foo('b', 'u3')], [deployment('a', 'u1'), deployment('b', 'u3')]);
    const ours = normalizedEndState(
      [foo('a', 'u2', 0), foo('b', 'u4')],
      [deployment('a', 'u2', { image: 'nginx:1.27', annotations: { extra: 'x' } })],
    );
    expect(endStateDifferences(go, ours).map((d) => d.split(':')[0])).toStrictEqual([
      'Deployment/a',
      'Deployment/b',
      'Foo/a',
    ]);
    expect(endStateDifferences(go, ours).find((d) => d.startsWith('Deployment/b'))).toMatch(/!= absent$/);
  });
});

describe('where the benchmark puts its Foos (--namespaces)', () => {
  test('one namespace is default, as every benchmark before; more spread the Foos evenly', () => {
    expect(fooNamespace(7, 1)).toBe('default');
    const counts = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) counts.set(fooNamespace(i, 1000), (counts.get(fooNamespace(i, 1000)) ?? 0) + 1);
    expect(counts.size).toBe(1000);
    expect(new Set(counts.values())).toEqual(new Set([10]));
    expect(fooNamespace(1005, 1000)).toBe('foo-5');
  });
});
