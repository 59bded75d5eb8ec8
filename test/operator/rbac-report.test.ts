import { Chart, Testing } from 'cdk8s';
import { FakeCrd } from './crd-double';
import { OperatorRbac, OperatorRbacProps } from '../../lib';
import { renderRbacReport } from '../../lib/operator/rbac-report';

function report(props: Partial<OperatorRbacProps> = {}) {
  const chart = new Chart(Testing.app(), 'test');
  const foo = new FakeCrd(chart, 'foo', { group: 'samplecontroller.k8s.io', kind: 'Foo', plural: 'foos' });
  const rbac = new OperatorRbac(chart, 'rbac', {
    name: 'foo-op',
    namespace: 'foo-system',
    crds: [foo],
    contract: { watches: [foo], status: true, leaderElection: true },
    ...props,
  });
  return renderRbacReport({
    operatorName: 'foo-op',
    serviceAccount: { name: 'foo-op', namespace: 'foo-system' },
    watchNamespaces: rbac.watchNamespaces,
    grants: rbac.grants,
  });
}

describe('renderRbacReport', () => {
  test('one table per role, each rule with its verbs and reasons', () => {
    const text = report();
    expect(text).toContain('Watch scope: cluster-wide (ClusterRole + ClusterRoleBinding).');
    expect(text).toContain(
      [
        '## ClusterRole `foo-op-manager` — contract',
        '',
        'Bound to the ServiceAccount by ClusterRoleBinding `foo-op-manager`.',
        '',
        '| API group | resource | names | verbs | why |',
        '|---|---|---|---|---|',
        '| samplecontroller.k8s.io | foos | all | get, list, watch | watches Foo |',
        '| samplecontroller.k8s.io | foos/status | all | get, update, patch | writes Foo status |',
      ].join('\n'),
    );
    expect(text).toContain('## Role `foo-system/foo-op-leader-election` — leader election');
  });

  test('namespaced scope: one section per namespace and can-i lines scoped to it', () => {
    const text = report({ watchNamespaces: ['team-a', 'team-b'] });
    expect(text).toContain('Watch scope: namespaces `team-a`, `team-b` (a Role + RoleBinding in each).');
    expect(text).toContain('## Role `team-b/foo-op-manager` — contract');
    expect(text).toContain(
      'kubectl auth can-i update foos.samplecontroller.k8s.io --subresource=status -n team-a --as=system:serviceaccount:foo-system:foo-op   # yes',
    );
    expect(text.split('\n').filter((l) => l.endsWith('# yes') && l.includes(' -A '))).toStrictEqual([]);
  });

  test('rules beyond the contract are marked, with their reason and accepted risks', () => {
    const text = report({
      additionalRules: [
        {
          apiGroups: [''],
          resources: ['nodes'],
          verbs: ['get', 'list'],
          reason: 'zone-aware placement',
          acceptRisks: [],
        },
      ],
    });
    expect(text).toContain(
      '## ClusterRole `foo-op-additional` — escape hatch (additionalRules) (**beyond the contract**)',
    );
    expect(text).toContain('| (core) | nodes | all | get, list | zone-aware placement |');
  });
});
