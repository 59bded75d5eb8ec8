import {
  applyOwned,
  CLUSTERROLE,
  CONFIGMAP,
  CORE_EVENT,
  DEPLOYMENT,
  EVENT,
  HORIZONTALPODAUTOSCALER,
  KubeClient,
  KubeObject,
  LEASE,
  NAMESPACE,
  NETWORKPOLICY,
  RESOURCEQUOTA,
  SECRET,
  STATEFULSET,
} from '../../runtime';
import * as builtins from '../../runtime/builtins';
import { WELL_KNOWN_PLURALS } from '../../runtime/resource';

/** Records what applyOwned sends; the compile-time checks below are what this file is about. */
function recordingClient(sent: KubeObject[]): KubeClient {
  return {
    patch: async (_ref: unknown, _n: string, _ns: unknown, p: { body: KubeObject }) => {
      sent.push(p.body);
      return p.body;
    },
  } as unknown as KubeClient;
}

describe('typed built-in kinds', () => {
  test("applyOwned of a Deployment is type-checked against the Kubernetes API's type (misspelt and mistyped fields do not compile)", async () => {
    const sent: KubeObject[] = [];
    const client = recordingClient(sent);
    const metadata = { name: 'web', namespace: 'default' };
    await applyOwned(
      client,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata,
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
          },
        },
      },
      { fieldManager: 'test', resource: DEPLOYMENT },
    );
    await applyOwned(
      client,
      // @ts-expect-error `replica` is not a DeploymentSpec field (the apiserver would drop it silently)
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec: { replica: 2, selector: {}, template: {} } },
      { fieldManager: 'test', resource: DEPLOYMENT },
    );
    await applyOwned(
      client,
      // @ts-expect-error replicas is an integer, not a string
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec: { replicas: '2', selector: {}, template: {} } },
      { fieldManager: 'test', resource: DEPLOYMENT },
    );
    await applyOwned(
      client,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata,
        // @ts-expect-error a container needs a name
        spec: { selector: {}, template: { spec: { containers: [{ image: 'x:1' }] } } },
      },
      { fieldManager: 'test', resource: DEPLOYMENT },
    );
    await applyOwned(
      client,
      // @ts-expect-error ConfigMap data values are strings
      { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { n: 1 } },
      { fieldManager: 'test', resource: CONFIGMAP },
    );
    // untyped references stay as they were: any object
    await applyOwned(
      client,
      { apiVersion: 'example.com/v1', kind: 'Foo', metadata, anything: true },
      { fieldManager: 'test', resource: { apiVersion: 'example.com/v1', kind: 'Foo', plural: 'foos' } },
    );
    expect(sent).toHaveLength(6);
  });

  test('the kinds a tenant operator owns are typed too: Namespace, ResourceQuota, ClusterRole, NetworkPolicy', async () => {
    const sent: KubeObject[] = [];
    const client = recordingClient(sent);
    await applyOwned(
      client,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-a' }, spec: { finalizers: ['kubernetes'] } },
      { fieldManager: 'test', resource: NAMESPACE },
    );
    await applyOwned(
      client,
      {
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: 'q', namespace: 'tenant-a' },
        spec: { hard: { pods: '10' } },
      },
      { fieldManager: 'test', resource: RESOURCEQUOTA },
    );
    await applyOwned(
      client,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'r' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
      },
      { fieldManager: 'test', resource: CLUSTERROLE },
    );
    await applyOwned(
      client,
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'deny', namespace: 'tenant-a' },
        spec: { podSelector: {}, policyTypes: ['Ingress'] },
      },
      { fieldManager: 'test', resource: NETWORKPOLICY },
    );
    await applyOwned(
      client,
      // @ts-expect-error ResourceQuota's hard limits are quantities (strings or numbers), not objects
      { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: { max: 10 } } } },
      { fieldManager: 'test', resource: RESOURCEQUOTA },
    );
    await applyOwned(
      client,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'r' },
        // @ts-expect-error a ClusterRole rule's verbs are a list
        rules: [{ verbs: 'get' }],
      },
      { fieldManager: 'test', resource: CLUSTERROLE },
    );
    await applyOwned(
      client,
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'deny' },
        // @ts-expect-error `podSelectors` is not a NetworkPolicySpec field
        spec: { podSelectors: {} },
      },
      { fieldManager: 'test', resource: NETWORKPOLICY },
    );
    expect(sent).toHaveLength(7);
    expect([
      NAMESPACE.plural,
      RESOURCEQUOTA.plural,
      CLUSTERROLE.plural,
      EVENT.apiVersion,
      CORE_EVENT.apiVersion,
      HORIZONTALPODAUTOSCALER.apiVersion,
    ]).toStrictEqual(['namespaces', 'resourcequotas', 'clusterroles', 'events.k8s.io/v1', 'v1', 'autoscaling/v2']);
  });

  test("date-times are strings, as the runtime's caches hold them (not client-node's Date objects)", () => {
    const lease: builtins.Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l' },
      spec: { renewTime: '2026-01-01T00:00:00.000000Z' },
    };
    const secret: builtins.Secret = {
      metadata: { name: 's', creationTimestamp: '2026-01-01T00:00:00Z' },
      data: { k: 'dg==' },
    };
    expect([lease.spec?.renewTime, secret.data?.k]).toStrictEqual(['2026-01-01T00:00:00.000000Z', 'dg==']);
  });

  test('every typed reference names a built-in kind with the plural the kinds table has (no discovery needed)', () => {
    const refs = Object.entries(builtins).filter(
      ([name]) => /^[A-Z_0-9]+$/.test(name) && name !== 'BUILTIN_KIND_NAMESPACED',
    ) as [string, { apiVersion: string; kind: string; plural: string }][];
    expect(refs.length).toBeGreaterThanOrEqual(59);
    // the kinds table (RBAC derivation) lists fewer kinds; where it has one, it agrees with the generated plural
    const inTable = refs.filter(([, ref]) => WELL_KNOWN_PLURALS[`${ref.apiVersion}/${ref.kind}`] !== undefined);
    expect(inTable.length).toBeGreaterThanOrEqual(35);
    for (const [name, ref] of inTable) {
      expect({ name, plural: WELL_KNOWN_PLURALS[`${ref.apiVersion}/${ref.kind}`] }).toStrictEqual({
        name,
        plural: ref.plural,
      });
    }
    expect([DEPLOYMENT.plural, STATEFULSET.plural, SECRET.plural, LEASE.plural]).toStrictEqual([
      'deployments',
      'statefulsets',
      'secrets',
      'leases',
    ]);
  });
});
