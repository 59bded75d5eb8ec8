import { knownKinds } from '../../lib/apimachinery/kinds';
import { SERVED_API_RANGES, servedBy } from '../../lib/apimachinery/served-apis';
import { describeEachApiServerVersion } from '../envtest';

/**
 * Which built-in API versions each Kubernetes version serves, by our table, against each apiserver's own discovery
 * (default flags, as a cluster without feature gates): every API version the table names, every built-in kind the
 * project knows (what operators own and watch), and every API version the apiserver serves that the table does not
 * name must be served by all three versions (else the table misses it).
 */
const apiVersionOf = (group: string, version: string) => (group === '' ? version : `${group}/${version}`);

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
      // one serves beyond the API versions all three share; those are recorded below from the three apiservers
      const shared = new Set(SHARED_BY_ALL);
      expect([...served].filter((k) => !shared.has(k) && !(k in SERVED_API_RANGES)).sort()).toStrictEqual([]);
    });
  },
  { shared: true },
);

/**
 * API versions 1.28.15, 1.32.13 and 1.36.3 all serve by default, from their discovery (the union of each one's list
 * minus these is what the table must name).
 */
const SHARED_BY_ALL = [
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration',
  'apiextensions.k8s.io/v1/CustomResourceDefinition',
  'apiregistration.k8s.io/v1/APIService',
  'apps/v1/ControllerRevision',
  'apps/v1/DaemonSet',
  'apps/v1/Deployment',
  'apps/v1/ReplicaSet',
  'apps/v1/StatefulSet',
  'authentication.k8s.io/v1/SelfSubjectReview',
  'authentication.k8s.io/v1/TokenReview',
  'authorization.k8s.io/v1/LocalSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectRulesReview',
  'authorization.k8s.io/v1/SubjectAccessReview',
  'autoscaling/v1/HorizontalPodAutoscaler',
  'autoscaling/v2/HorizontalPodAutoscaler',
  'batch/v1/CronJob',
  'batch/v1/Job',
  'certificates.k8s.io/v1/CertificateSigningRequest',
  'coordination.k8s.io/v1/Lease',
  'discovery.k8s.io/v1/EndpointSlice',
  'events.k8s.io/v1/Event',
  'networking.k8s.io/v1/Ingress',
  'networking.k8s.io/v1/IngressClass',
  'networking.k8s.io/v1/NetworkPolicy',
  'node.k8s.io/v1/RuntimeClass',
  'policy/v1/PodDisruptionBudget',
  'rbac.authorization.k8s.io/v1/ClusterRole',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
  'rbac.authorization.k8s.io/v1/Role',
  'rbac.authorization.k8s.io/v1/RoleBinding',
  'scheduling.k8s.io/v1/PriorityClass',
  'storage.k8s.io/v1/CSIDriver',
  'storage.k8s.io/v1/CSINode',
  'storage.k8s.io/v1/CSIStorageCapacity',
  'storage.k8s.io/v1/StorageClass',
  'storage.k8s.io/v1/VolumeAttachment',
  'v1/Binding',
  'v1/ComponentStatus',
  'v1/ConfigMap',
  'v1/Endpoints',
  'v1/Event',
  'v1/LimitRange',
  'v1/Namespace',
  'v1/Node',
  'v1/PersistentVolume',
  'v1/PersistentVolumeClaim',
  'v1/Pod',
  'v1/PodTemplate',
  'v1/ReplicationController',
  'v1/ResourceQuota',
  'v1/Secret',
  'v1/Service',
  'v1/ServiceAccount',
];
