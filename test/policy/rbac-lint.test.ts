import { lintRbac } from '../../lib';
import { ACCEPTED_RISKS_ANNOTATION } from '../../lib/operator/rbac-risk';

const role = (rules: any[], annotations?: Record<string, string>) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'r', annotations },
  rules,
});

describe('lintRbac', () => {
  test('passes least-privilege rules', () => {
    expect(
      lintRbac([role([{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch'] }])]),
    ).toStrictEqual([]);
  });

  test('wildcards are errors, per field', () => {
    const issues = lintRbac([role([{ apiGroups: ['*'], resources: ['pods'], verbs: ['*'] }])]);
    expect(issues.map((i) => [i.path, i.severity])).toStrictEqual([
      ['ClusterRole r: rules[0].apiGroups', 'error'],
      ['ClusterRole r: rules[0].verbs', 'error'],
    ]);
  });

  test('escalate, bind and impersonate are errors', () => {
    const issues = lintRbac([
      role([
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['get', 'bind', 'escalate'] },
      ]),
    ]);
    expect(issues).toHaveLength(1);
    expect(issues[0].message).toMatch(/^bind, escalate bypass RBAC privilege-escalation checks/);
    expect(issues[0].value).toStrictEqual(['get', 'bind', 'escalate']);
  });

  test('list/watch on secrets is an error, get alone is not', () => {
    expect(lintRbac([role([{ apiGroups: [''], resources: ['secrets'], verbs: ['watch'] }])])[0].message).toMatch(
      /secrets/,
    );
    expect(lintRbac([role([{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }])])).toStrictEqual([]);
    expect(lintRbac([role([{ apiGroups: ['example.com'], resources: ['secrets'], verbs: ['list'] }])])).toStrictEqual(
      [],
    );
  });

  test('accepted risks are silent, others stay errors; an acceptance no rule needs is reported as stale', () => {
    const issues = lintRbac([
      role([{ apiGroups: [''], resources: ['*'], verbs: ['list'] }], { [ACCEPTED_RISKS_ANNOTATION]: 'wildcard' }),
    ]);
    expect(issues.map((i) => [i.severity, /secrets/.test(i.message)])).toStrictEqual([['error', true]]);
    const stale = lintRbac([
      role([{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }], {
        [ACCEPTED_RISKS_ANNOTATION]: 'privilege-escalation,wildcard',
      }),
    ]);
    expect(stale).toStrictEqual(
      ['privilege-escalation', 'wildcard'].map((risk) => ({
        path: `ClusterRole r: metadata.annotations.${ACCEPTED_RISKS_ANNOTATION}`,
        message: `accepted risk '${risk}' matches no rule of this role (stale? remove it from acceptRisks)`,
        value: risk,
        severity: 'warning',
      })),
    );
  });

  test('bind on roles by name (contract.binds) is no risk; bind on every role, or with other verbs, is', () => {
    const byName = {
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['clusterroles'],
      verbs: ['bind'],
      resourceNames: ['admin'],
    };
    expect(lintRbac([role([byName])])).toStrictEqual([]);
    expect(lintRbac([role([{ ...byName, resources: ['roles'], resourceNames: ['tenant-reader'] }])])).toStrictEqual([]);
    for (const broader of [
      { ...byName, resourceNames: undefined },
      { ...byName, resourceNames: ['*'] },
      { ...byName, verbs: ['bind', 'escalate'] },
      { ...byName, resources: ['clusterroles', 'pods'] },
    ]) {
      expect(lintRbac([role([broader])]).map((i) => [i.severity, i.message])).toStrictEqual([
        ['error', expect.stringContaining('bypass RBAC privilege-escalation checks')],
      ]);
    }
  });

  test('duplicate rules are reported', () => {
    const issues = lintRbac([
      role([
        { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
        { apiGroups: [''], resources: ['pods', 'services'], verbs: ['list'] },
      ]),
    ]);
    expect(issues).toStrictEqual([
      {
        path: 'ClusterRole r: rules[1].resources',
        message: 'duplicate rule: core/pods is also granted by rules[0]; merge them',
        value: 'pods',
        severity: 'warning',
      },
    ]);
  });

  test('ignores objects that are not roles', () => {
    expect(lintRbac([{ kind: 'ClusterRoleBinding', rules: [{ verbs: ['*'] }] }])).toStrictEqual([]);
  });
});
