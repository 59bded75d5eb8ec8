import { strategicMergePatch } from './strategic-merge';

describe('strategic merge patch', () => {
  const deployment = {
    metadata: { finalizers: ['a/b'], labels: { app: 'x' } },
    spec: {
      template: {
        spec: {
          containers: [
            { name: 'app', image: 'app:1', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] },
            { name: 'sidecar', image: 'side:1' },
          ],
          tolerations: [{ key: 'k', operator: 'Exists' }],
        },
      },
    },
  };

  test('merges containers by name and keeps unmentioned fields and items', () => {
    const out = strategicMergePatch(deployment, {
      spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }], 'containers': [{ name: 'app', image: 'app:2' }] } } },
    });
    expect(out.spec.template.spec.containers).toEqual([
      { name: 'app', image: 'app:2', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] },
      { name: 'sidecar', image: 'side:1' },
    ]);
  });

  test('$patch delete removes an item; nested env merges by name; null deletes a key', () => {
    const out = strategicMergePatch(deployment, {
      metadata: { labels: { app: null } },
      spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }, { name: 'app', env: [{ name: 'B', value: '3' }] }] } } },
    });
    expect(out.spec.template.spec.containers).toHaveLength(1);
    expect(out.spec.template.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }, { name: 'B', value: '3' }]);
    expect(out.metadata.labels).toEqual({});
  });

  test('lists without a merge key are replaced; finalizers are unioned; $deleteFromPrimitiveList removes', () => {
    const out = strategicMergePatch(deployment, { metadata: { finalizers: ['c/d'] }, spec: { template: { spec: { tolerations: [] } } } });
    expect(out.spec.template.spec.tolerations).toEqual([]);
    expect(out.metadata.finalizers).toEqual(['a/b', 'c/d']);
    const removed = strategicMergePatch(out, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a/b'] } });
    expect(removed.metadata.finalizers).toEqual(['c/d']);
  });

  test('$setElementOrder reorders merged items', () => {
    const out = strategicMergePatch(deployment, { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }] } } } });
    expect(out.spec.template.spec.containers.map((c: any) => c.name)).toEqual(['sidecar', 'app']);
  });
});
