import { removedApi, SERVED_BY_ALL } from '../../lib/apimachinery/builtin-apis';
import { knownKinds } from '../../lib/apimachinery/kinds';
import { KUBERNETES_VERSIONS } from '../../lib/apimachinery/kubernetes-versions';
import { SERVED_API_RANGES, servedBy } from '../../lib/apimachinery/served-apis';
import { describeEachApiServerVersion } from '../envtest';

/**
 * Which built-in API versions each Kubernetes version serves, by our table, against each apiserver's own discovery
 * (default flags, as a cluster without feature gates): every API version the table names, every built-in kind the
 * project knows (what operators own and watch), and every API version the apiserver serves that the table does not
 * name must be served by all three versions (else the table misses it).
 */
const apiVersionOf = (group: string, version: string) => (group === '' ? version : `${group}/${version}`);

/** Built-in API versions and kinds that no supported version serves: removed ones, and kinds in the wrong group. */
const NOT_SERVED: ReadonlyArray<readonly [string, string]> = [
  ['policy/v1beta1', 'PodDisruptionBudget'],
  ['policy/v1beta1', 'PodSecurityPolicy'],
  ['extensions/v1beta1', 'Ingress'],
  ['extensions/v1beta1', 'Deployment'],
  ['networking.k8s.io/v1beta1', 'Ingress'],
  ['batch/v1beta1', 'CronJob'],
  ['autoscaling/v2beta2', 'HorizontalPodAutoscaler'],
  ['autoscaling/v2beta1', 'HorizontalPodAutoscaler'],
  ['apps/v1beta1', 'Deployment'],
  ['apps/v1beta2', 'StatefulSet'],
  ['rbac.authorization.k8s.io/v1beta1', 'Role'],
  ['rbac.authorization.k8s.io/v1beta1', 'ClusterRoleBinding'],
  ['discovery.k8s.io/v1beta1', 'EndpointSlice'],
  ['storage.k8s.io/v1beta1', 'CSIStorageCapacity'],
  ['v1', 'Deployment'],
  ['apps/v1', 'Service'],
  ['policy/v1', 'PodSecurityPolicy'],
  ['batch/v2', 'Job'],
];

describeEachApiServerVersion(
  'served API versions',
  (plane, version) => {
    let served: Set<string>;
    beforeAll(async () => {
      served = new Set();
      const lists = [(await plane().request('GET', '/api/v1')).body];
      for (const g of (await plane().request('GET', '/apis')).body.groups) {
        for (const gv of g.versions) lists.push((await plane().request('GET', `/apis/${gv.groupVersion}`)).body);
      }
      for (const list of lists) {
        for (const r of list.resources) if (!r.name.includes('/')) served.add(`${list.groupVersion}/${r.kind}`);
      }
    }, 60_000);

    test('every API version the table names: served exactly where the table says', () => {
      const keys = Object.keys(SERVED_API_RANGES);
      const ours = keys.filter((k) =>
        servedBy(k.slice(0, k.lastIndexOf('/')), k.slice(k.lastIndexOf('/') + 1), version),
      );
      expect(keys.filter((k) => served.has(k)).sort()).toStrictEqual(ours.sort());
    });

    test('every built-in kind the project knows is served', () => {
      const kinds = knownKinds().map((k) => `${apiVersionOf(k.group, k.version)}/${k.kind}`);
      expect(kinds.length).toBeGreaterThan(30);
      expect(kinds.filter((k) => !served.has(k))).toStrictEqual([]);
    });

    test('the table names every API version that this version serves and another supported version does not', () => {
      // the union over 1.28, 1.32 and 1.36 of what one serves and another does not is in the table: here, what this
      // one serves beyond the API versions all three share (SERVED_BY_ALL, recorded from the three apiservers)
      const shared = new Set(SERVED_BY_ALL);
      expect([...served].filter((k) => !shared.has(k) && !(k in SERVED_API_RANGES)).sort()).toStrictEqual([]);
    });

    test('every API version SERVED_BY_ALL names is served', () => {
      expect(SERVED_BY_ALL.filter((k) => !served.has(k))).toStrictEqual([]);
    });

    test.each(NOT_SERVED)(
      '%s %s: not served (kubectl apply: no matches for kind), nor by us',
      async (apiVersion, kind) => {
        expect(served.has(`${apiVersion}/${kind}`)).toBe(false);
        expect(servedBy(apiVersion, kind, version)).toBe(false);
        // the group-version itself may be served (v1, apps/v1) or not (policy/v1beta1): the kind is not there
        const r = await plane().request('GET', apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`);
        const kinds = r.code === 200 ? (r.body.resources as any[]).map((x) => x.kind) : [];
        expect(kinds).not.toContain(kind);
      },
    );
  },
  { shared: true },
);

describe('built-in API versions no supported version serves', () => {
  test.each(NOT_SERVED)('%s %s is served by no supported version', (apiVersion, kind) => {
    expect(KUBERNETES_VERSIONS.filter((v) => servedBy(apiVersion, kind, v))).toStrictEqual([]);
  });

  test("the message names kubectl's words, the release that removed it and the replacement", () => {
    expect(removedApi('policy/v1beta1', 'PodDisruptionBudget')).toBe(
      'no matches for kind "PodDisruptionBudget" in version "policy/v1beta1": removed in Kubernetes 1.25, use policy/v1',
    );
    expect(removedApi('apps/v1beta2', 'StatefulSet')).toBe(
      'no matches for kind "StatefulSet" in version "apps/v1beta2": removed in Kubernetes 1.16, use apps/v1',
    );
    expect(removedApi('v1', 'Deployment')).toBe(
      'no matches for kind "Deployment" in version "v1": Deployment is served as apps/v1',
    );
    expect(removedApi('batch/v2', 'Job')).toBe(
      'no matches for kind "Job" in version "batch/v2": Job is served as batch/v1',
    );
    expect(removedApi('apps/v1', 'Frobnicator')).toBe(
      'no matches for kind "Frobnicator" in version "apps/v1": no supported Kubernetes version serves it by default',
    );
  });

  test('custom resources, and served built-in kinds, are served', () => {
    for (const [apiVersion, kind] of [
      ['example.com/v1', 'Widget'],
      ['monitoring.coreos.com/v1', 'ServiceMonitor'],
      ['metrics.k8s.io/v1beta1', 'PodMetrics'],
      ['apps/v1', 'Deployment'],
      ['v1', 'ConfigMap'],
    ]) {
      expect([apiVersion, kind, KUBERNETES_VERSIONS.every((v) => servedBy(apiVersion, kind, v))]).toStrictEqual([
        apiVersion,
        kind,
        true,
      ]);
      expect(removedApi(apiVersion, kind)).toBeUndefined();
    }
  });
});
