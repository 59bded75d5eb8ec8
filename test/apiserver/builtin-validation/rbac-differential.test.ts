import { Compare, differences } from './object-meta-compare';
import { baseObject } from './object-meta-fixtures';
import { describeEachApiServerVersion } from '../../envtest';

/**
 * Roles, ClusterRoles and their bindings against the real apiservers of 1.28, 1.32 and 1.36: a valid object and one
 * mutation each. Dry-run creates only.
 */
const RBAC = 'rbac.authorization.k8s.io';
const ok = { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] };
const role = (rule: Record<string, unknown>) => ({ ...baseObject(`${RBAC}/v1/Role`), rules: [rule] });
const clusterRole = (f: Record<string, unknown>) => ({ ...baseObject(`${RBAC}/v1/ClusterRole`), ...f });
const ref = (f: Record<string, unknown> = {}) => ({ apiGroup: RBAC, kind: 'ClusterRole', name: 'r', ...f });
const rb = (f: Record<string, unknown>) => ({ ...baseObject(`${RBAC}/v1/RoleBinding`), roleRef: ref(), ...f });
const crb = (f: Record<string, unknown>) => ({ ...baseObject(`${RBAC}/v1/ClusterRoleBinding`), roleRef: ref(), ...f });
const sa = (f: Record<string, unknown> = {}) => ({ kind: 'ServiceAccount', name: 'sa', namespace: 'default', ...f });

const CASES: ReadonlyArray<readonly [string, any, Compare?]> = [
  ['Role', role(ok)],
  ['Role rule without verbs', role({ ...ok, verbs: [] })],
  ['Role rule without apiGroups', role({ ...ok, apiGroups: [] })],
  ['Role rule without resources', role({ ...ok, resources: undefined })],
  ['Role rule empty', role({})],
  ['Role rule with nonResourceURLs', role({ nonResourceURLs: ['/healthz'], verbs: ['get'] })],
  ['Role rule with resourceNames', role({ ...ok, resourceNames: ['a'] })],
  ['Role rule with a verb of its own', role({ ...ok, verbs: ['frobnicate'] })],
  [
    'ClusterRole rule with nonResourceURLs',
    clusterRole({ rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] }),
  ],
  [
    'ClusterRole rule with nonResourceURLs and resources',
    clusterRole({ rules: [{ ...ok, nonResourceURLs: ['/healthz'] }] }),
  ],
  ['ClusterRole rule without verbs', clusterRole({ rules: [{ ...ok, verbs: undefined }] })],
  ['ClusterRole second rule without apiGroups', clusterRole({ rules: [ok, { ...ok, apiGroups: undefined }] })],
  [
    'ClusterRole aggregationRule',
    clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } }),
  ],
  ['ClusterRole aggregationRule without selectors', clusterRole({ aggregationRule: {} })],
  // found by bench/builtin-differential.ts: each selector is validated, then converted
  [
    'ClusterRole aggregation selector value -x',
    clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: '-x' } }] } }),
  ],
  [
    'ClusterRole aggregation selector key a/b/c',
    clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'a/b/c': 'x' } }] } }),
  ],
  [
    'ClusterRole aggregation selector operator Bad',
    clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Bad' }] }] } }),
  ],
  [
    'ClusterRole aggregation selector In without values',
    clusterRole({
      aggregationRule: {
        clusterRoleSelectors: [{ matchLabels: { a: 'b' } }, { matchExpressions: [{ key: 'a', operator: 'In' }] }],
      },
    }),
  ],
  ['RoleBinding', rb({ subjects: [sa()] })],
  ['RoleBinding to a Role', rb({ roleRef: ref({ kind: 'Role' }) })],
  ['RoleBinding roleRef without apiGroup', rb({ roleRef: ref({ apiGroup: '' }) })],
  ['RoleBinding roleRef apiGroup rbac.authorization.k8s.io/v1', rb({ roleRef: ref({ apiGroup: `${RBAC}/v1` }) })],
  ['RoleBinding roleRef kind User', rb({ roleRef: ref({ kind: 'User' }) })],
  ['RoleBinding roleRef without name', rb({ roleRef: ref({ name: '' }) })],
  ['RoleBinding roleRef name with a slash', rb({ roleRef: ref({ name: 'a/b' }) })],
  ['RoleBinding roleRef name Bad_Name', rb({ roleRef: ref({ name: 'Bad_Name' }) })],
  ['RoleBinding ServiceAccount without namespace', rb({ subjects: [sa({ namespace: undefined })] })],
  ['RoleBinding ServiceAccount with an apiGroup', rb({ subjects: [sa({ apiGroup: RBAC })] })],
  ['RoleBinding ServiceAccount named Bad_Name', rb({ subjects: [sa({ name: 'Bad_Name' })] })],
  ['RoleBinding ServiceAccount without name', rb({ subjects: [sa({ name: '' })] })],
  ['RoleBinding User', rb({ subjects: [{ kind: 'User', name: 'Jane Doe' }] })],
  ['RoleBinding User with its apiGroup', rb({ subjects: [{ kind: 'User', name: 'j', apiGroup: RBAC }] })],
  ['RoleBinding User with another apiGroup', rb({ subjects: [{ kind: 'User', name: 'j', apiGroup: 'x' }] })],
  ['RoleBinding Group without name', rb({ subjects: [{ kind: 'Group', name: '' }] })],
  ['RoleBinding subject of kind Pod', rb({ subjects: [{ kind: 'Pod', name: 'p' }] })],
  ['ClusterRoleBinding', crb({ subjects: [sa()] })],
  ['ClusterRoleBinding to a Role', crb({ roleRef: ref({ kind: 'Role' }) })],
  ['ClusterRoleBinding ServiceAccount without namespace', crb({ subjects: [sa({ namespace: undefined })] })],
  ['ClusterRoleBinding Group', crb({ subjects: [{ kind: 'Group', name: 'system:authenticated' }] })],
];

describeEachApiServerVersion(
  'RBAC objects against the apiserver',
  (plane, version) => {
    // every row of three: jest would take a missing third argument for a `done` callback
    test.each(CASES.map(([n, o, c]) => [n, o, c ?? {}] as const))('%s', async (_name, object, compare) => {
      expect(await differences(plane(), object, version, compare)).toStrictEqual([]);
    });
  },
  { shared: true },
);
