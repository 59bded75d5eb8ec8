import { applyOwned, CONFIGMAP, DEPLOYMENT, KubeClient, KubeObject, LEASE, SECRET, STATEFULSET } from '../../runtime';
import { WELL_KNOWN_PLURALS } from '../../runtime/resource';
import * as builtins from '../../runtime/builtins';

/** Records what applyOwned sends; the compile-time checks below are what this file is about. */
function recordingClient(sent: KubeObject[]): KubeClient {
  return { patch: async (_ref: unknown, _n: string, _ns: unknown, p: { body: KubeObject }) => { sent.push(p.body); return p.body; } } as unknown as KubeClient;
}

describe('typed built-in kinds', () => {
  test('applyOwned of a Deployment is type-checked against the Kubernetes API\'s type (misspelt and mistyped fields do not compile)', async () => {
    const sent: KubeObject[] = [];
    const client = recordingClient(sent);
    const metadata = { name: 'web', namespace: 'default' };
    await applyOwned(client, {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata,
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
    }, { fieldManager: 'test', resource: DEPLOYMENT });
    // @ts-expect-error `replica` is not a DeploymentSpec field (the apiserver would drop it silently)
    await applyOwned(client, { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec: { replica: 2, selector: {}, template: {} } }, { fieldManager: 'test', resource: DEPLOYMENT });
    // @ts-expect-error replicas is an integer, not a string
    await applyOwned(client, { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec: { replicas: '2', selector: {}, template: {} } }, { fieldManager: 'test', resource: DEPLOYMENT });
    // @ts-expect-error a container needs a name
    await applyOwned(client, { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec: { selector: {}, template: { spec: { containers: [{ image: 'x:1' }] } } } }, { fieldManager: 'test', resource: DEPLOYMENT });
    // @ts-expect-error ConfigMap data values are strings
    await applyOwned(client, { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { n: 1 } }, { fieldManager: 'test', resource: CONFIGMAP });
    // untyped references stay as they were: any object
    await applyOwned(client, { apiVersion: 'example.com/v1', kind: 'Foo', metadata, anything: true }, { fieldManager: 'test', resource: { apiVersion: 'example.com/v1', kind: 'Foo', plural: 'foos' } });
    expect(sent).toHaveLength(6);
  });

  test('date-times are strings, as the runtime\'s caches hold them (not client-node\'s Date objects)', () => {
    const lease: builtins.Lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { renewTime: '2026-01-01T00:00:00.000000Z' } };
    const secret: builtins.Secret = { metadata: { name: 's', creationTimestamp: '2026-01-01T00:00:00Z' }, data: { k: 'dg==' } };
    expect([lease.spec?.renewTime, secret.data?.k]).toStrictEqual(['2026-01-01T00:00:00.000000Z', 'dg==']);
  });

  test('every typed reference names a built-in kind with the plural the kinds table has (no discovery needed)', () => {
    const refs = Object.entries(builtins).filter(([name]) => /^[A-Z]+$/.test(name)) as [string, { apiVersion: string; kind: string; plural: string }][];
    expect(refs.length).toBeGreaterThanOrEqual(17);
    for (const [name, ref] of refs) expect({ name, plural: WELL_KNOWN_PLURALS[`${ref.apiVersion}/${ref.kind}`] }).toStrictEqual({ name, plural: ref.plural });
    expect([DEPLOYMENT.plural, STATEFULSET.plural, SECRET.plural, LEASE.plural]).toStrictEqual(['deployments', 'statefulsets', 'secrets', 'leases']);
  });
});
