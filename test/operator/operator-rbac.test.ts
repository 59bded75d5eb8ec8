import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { FakeCrd } from './crd-double';
import { lintRbac, OperatorApp, OperatorRbac, RbacRisk, Warnings } from '../../lib';
import { renderRbacReport } from '../../lib/operator/rbac-report';
import { ACCEPTED_RISKS_ANNOTATION } from '../../lib/operator/rbac-risk';

/** A chart with a Foo CRD; with `policy`, in an OperatorApp whose synth-time policy checks every object. */
function setup(policy = false) {
  const app = policy
    ? new OperatorApp({
        outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'rbac-')),
        report: false,
        descriptionCheck: false,
      })
    : Testing.app();
  const chart = new Chart(app, 'test');
  const foo = new FakeCrd(chart, 'foo', { group: 'samplecontroller.k8s.io', kind: 'Foo', plural: 'foos' });
  return { chart, foo };
}
const byKind = (objs: any[], kind: string) => objs.filter((o) => o.kind === kind);

describe('OperatorRbac', () => {
  test('cluster-wide: a ClusterRole + ClusterRoleBinding to a ServiceAccount with its token mounted', () => {
    const { chart, foo } = setup();
    new OperatorRbac(chart, 'rbac', {
      name: 'foo-op',
      namespace: 'foo-system',
      crds: [foo],
      contract: { watches: [foo], status: true },
    });
    const out = Testing.synth(chart);
    expect(byKind(out, 'ServiceAccount')).toStrictEqual([
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'foo-op', namespace: 'foo-system' },
        automountServiceAccountToken: true,
      },
    ]);
    const [role] = byKind(out, 'ClusterRole');
    expect(role.metadata).toStrictEqual({ name: 'foo-op-manager' });
    expect(role.rules).toStrictEqual([
      { apiGroups: ['samplecontroller.k8s.io'], resources: ['foos'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['samplecontroller.k8s.io'], resources: ['foos/status'], verbs: ['get', 'update', 'patch'] },
    ]);
    const [binding] = byKind(out, 'ClusterRoleBinding');
    expect(binding.roleRef).toStrictEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'foo-op-manager',
    });
    expect(binding.subjects).toStrictEqual([
      { apiGroup: '', kind: 'ServiceAccount', name: 'foo-op', namespace: 'foo-system' },
    ]);
    expect(byKind(out, 'Role')).toHaveLength(0);
  });

  test('namespaced: a Role + RoleBinding per watched namespace, no ClusterRole', () => {
    const { chart, foo } = setup();
    new OperatorRbac(chart, 'rbac', {
      name: 'foo-op',
      namespace: 'foo-system',
      crds: [foo],
      watchNamespaces: ['team-a', 'team-b'],
      contract: { watches: [foo], events: true },
    });
    const out = Testing.synth(chart);
    expect(byKind(out, 'ClusterRole')).toHaveLength(0);
    expect(byKind(out, 'ClusterRoleBinding')).toHaveLength(0);
    const roles = byKind(out, 'Role');
    expect(roles.map((r) => `${r.metadata.namespace}/${r.metadata.name}`)).toStrictEqual([
      'team-a/foo-op-manager',
      'team-b/foo-op-manager',
    ]);
    expect(roles[0].rules).toStrictEqual(roles[1].rules);
    expect(roles[0].rules.map((r: any) => `${r.apiGroups[0]}/${r.resources[0]}`)).toStrictEqual([
      'samplecontroller.k8s.io/foos',
      'events.k8s.io/events',
      '/events',
    ]);
    const bindings = byKind(out, 'RoleBinding');
    expect(bindings.map((b) => [b.metadata.namespace, b.roleRef.name, b.subjects[0].namespace])).toStrictEqual([
      ['team-a', 'foo-op-manager', 'foo-system'],
      ['team-b', 'foo-op-manager', 'foo-system'],
    ]);
  });

  test('leader election: a Role in the operator namespace, even for a namespaced watch scope elsewhere', () => {
    const { chart, foo } = setup();
    new OperatorRbac(chart, 'rbac', {
      name: 'foo-op',
      namespace: 'foo-system',
      crds: [foo],
      watchNamespaces: ['team-a'],
      contract: { watches: [foo], leaderElection: true },
    });
    const le = byKind(Testing.synth(chart), 'Role').find((r) => r.metadata.name === 'foo-op-leader-election');
    expect(le.metadata.namespace).toBe('foo-system');
    expect(le.rules).toStrictEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    ]);
  });

  test('the generated RBAC has no wildcard and passes the RBAC lint', () => {
    const { chart, foo } = setup();
    new OperatorRbac(chart, 'rbac', {
      name: 'foo-op',
      namespace: 'foo-system',
      crds: [foo],
      contract: {
        watches: [foo],
        owns: [{ apiVersion: 'apps/v1', kind: 'Deployment' }],
        status: true,
        finalizers: true,
        events: true,
        leaderElection: true,
      },
    });
    const out = Testing.synth(chart);
    expect(JSON.stringify(out)).not.toContain('"*"');
    expect(lintRbac(out)).toStrictEqual([]);
  });

  test('additional rules live in their own role, are reported as warnings and listed as beyond the contract', () => {
    const { chart, foo } = setup();
    const rbac = new OperatorRbac(chart, 'rbac', {
      name: 'foo-op',
      namespace: 'foo-system',
      crds: [foo],
      contract: { watches: [foo] },
      additionalRules: [
        { apiGroups: [''], resources: ['nodes'], verbs: ['get'], reason: 'reads node zones for placement' },
      ],
    });
    const role = byKind(Testing.synth(chart), 'ClusterRole').find((r) => r.metadata.name === 'foo-op-additional');
    expect(role.rules).toStrictEqual([{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }]);
    expect(Warnings.collect(chart)).toStrictEqual([
      '[test/rbac] additionalRules[0] grants beyond the contract: get on core/nodes — reads node zones for placement',
    ]);
    expect(rbac.grants.filter((g) => g.beyondContract).map((g) => g.name)).toStrictEqual(['foo-op-additional']);
  });

  test('fails synth for a wildcard escape hatch without an accepted risk', () => {
    const { chart, foo } = setup(true);
    new OperatorRbac(chart, 'rbac', {
      name: 'foo-op',
      namespace: 'foo-system',
      crds: [foo],
      contract: { watches: [foo] },
      additionalRules: [{ apiGroups: ['apps'], resources: ['*'], verbs: ['get'], reason: 'lazy' }],
    });
    expect(() => Testing.synth(chart)).toThrow(
      /policy: \[test\/rbac\/AdditionalClusterRole\/Resource\] ClusterRole foo-op-additional: rules\[0\]\.resources: wildcard grants every current and future value.*accept it explicitly as risk 'wildcard'/,
    );
  });

  test('a wildcard with the risk accepted synthesizes, annotated, and the risk is not warned about again', () => {
    const { chart, foo } = setup(true);
    new OperatorRbac(chart, 'rbac', {
      name: 'foo-op',
      namespace: 'foo-system',
      crds: [foo],
      contract: { watches: [foo] },
      additionalRules: [
        {
          apiGroups: ['apps'],
          resources: ['*'],
          verbs: ['get'],
          reason: 'reads every apps kind',
          acceptRisks: [RbacRisk.WILDCARD],
        },
      ],
    });
    const role = byKind(Testing.synth(chart), 'ClusterRole').find((r) => r.metadata.name === 'foo-op-additional');
    expect(role.metadata.annotations).toStrictEqual({ [ACCEPTED_RISKS_ANNOTATION]: 'wildcard' });
    expect(Warnings.collect(chart).some((w) => /wildcard/.test(w))).toBe(false);
  });

  test('a contract that watches Secrets needs SECRETS_READ accepted', () => {
    const fails = setup(true);
    new OperatorRbac(fails.chart, 'rbac', {
      name: 'op',
      namespace: 'ns',
      contract: { watches: [{ apiVersion: 'v1', kind: 'Secret' }] },
    });
    expect(() => Testing.synth(fails.chart)).toThrow(/list\/watch on secrets reveals every secret's contents/);

    const ok = setup(true);
    new OperatorRbac(ok.chart, 'rbac', {
      name: 'op',
      namespace: 'ns',
      contract: { watches: [{ apiVersion: 'v1', kind: 'Secret' }] },
      acceptRisks: [RbacRisk.SECRETS_READ],
    });
    expect(() => Testing.synth(ok.chart)).not.toThrow();
  });

  test('ownsByName grants get and writes on Secrets without list/watch, so the lint passes without accepting a risk', () => {
    const { chart, foo } = setup(true);
    new OperatorRbac(chart, 'rbac', {
      name: 'op',
      namespace: 'ns',
      crds: [foo],
      contract: { watches: [foo], ownsByName: [{ apiVersion: 'v1', kind: 'Secret' }] },
    });
    const role = byKind(Testing.synth(chart), 'ClusterRole').find((r) => r.metadata.name === 'op-manager');
    const secrets = role.rules.filter((r: any) => r.resources.includes('secrets'));
    expect(secrets).toStrictEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'update', 'patch', 'delete'] },
    ]);
    expect(Warnings.collect(chart).filter((w) => /secrets/.test(w))).toStrictEqual([]);
  });

  describe('bad input', () => {
    test('fails synth with the construct path for a namespaced watch scope with a cluster-scoped CRD', () => {
      const { chart } = setup();
      const cl = new FakeCrd(chart, 'cl', { group: 'x.io', kind: 'Cl', plural: 'cls', scope: 'Cluster' as any });
      new OperatorRbac(chart, 'rbac', {
        name: 'op',
        namespace: 'ns',
        crds: [cl],
        watchNamespaces: ['a'],
        contract: { watches: [cl] },
      });
      expect(() => Testing.synth(chart)).toThrow(
        /\[test\/rbac\] contract\.watches\[0\]: kind 'x.io\/Cl' is cluster-scoped/,
      );
    });

    test('fails for an empty or duplicate watchNamespaces', () => {
      const { chart, foo } = setup();
      new OperatorRbac(chart, 'a', {
        name: 'op',
        namespace: 'ns',
        crds: [foo],
        watchNamespaces: [],
        contract: { watches: [foo] },
      });
      expect(() => Testing.synth(chart)).toThrow(/\[test\/a\] watchNamespaces: must name at least one namespace/);
      new OperatorRbac(chart, 'b', {
        name: 'op',
        namespace: 'ns',
        crds: [foo],
        watchNamespaces: ['x', 'x'],
        contract: { watches: [foo] },
      });
      expect(() => Testing.synth(chart)).toThrow(/\[test\/b\] watchNamespaces\[1\]: duplicate namespace 'x'/);
    });

    test('fails for an additional rule without a reason', () => {
      const { chart, foo } = setup();
      new OperatorRbac(chart, 'rbac', {
        name: 'op',
        namespace: 'ns',
        crds: [foo],
        contract: { watches: [foo] },
        additionalRules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'], reason: ' ' }],
      });
      expect(() => Testing.synth(chart)).toThrow(/\[test\/rbac\] additionalRules\[0\]\.reason: must say why/);
    });

    test('fails for a cluster-scoped additional rule with a namespaced watch scope', () => {
      const { chart, foo } = setup();
      new OperatorRbac(chart, 'rbac', {
        name: 'op',
        namespace: 'ns',
        crds: [foo],
        watchNamespaces: ['a'],
        contract: { watches: [foo] },
        additionalRules: [{ apiGroups: [''], resources: ['configmaps', 'nodes'], verbs: ['get'], reason: 'zones' }],
      });
      expect(() => Testing.synth(chart)).toThrow(
        /\[test\/rbac\] additionalRules\[0\]\.resources\[1\]: 'nodes' is cluster-scoped, but the watch scope is namespaced/,
      );
    });

    test('fails for an additional rule that duplicates a contract rule', () => {
      const { chart, foo } = setup();
      new OperatorRbac(chart, 'rbac', {
        name: 'op',
        namespace: 'ns',
        crds: [foo],
        contract: { watches: [foo], owns: [{ apiVersion: 'apps/v1', kind: 'Deployment' }] },
        additionalRules: [
          { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'delete'], reason: 'cleanup' },
        ],
      });
      expect(() => Testing.synth(chart)).toThrow(
        /\[test\/rbac\] additionalRules\[0\]: duplicates a contract rule: apps\/deployments already has get,list,watch,create,update,patch,delete \(owns Deployment\); remove it/,
      );
    });

    test('an additional rule that extends a contract rule with new verbs is allowed', () => {
      const { chart, foo } = setup();
      new OperatorRbac(chart, 'rbac', {
        name: 'op',
        namespace: 'ns',
        crds: [foo],
        contract: { watches: [foo] },
        additionalRules: [
          {
            apiGroups: ['samplecontroller.k8s.io'],
            resources: ['foos'],
            verbs: ['delete'],
            reason: 'garbage-collects expired Foos',
          },
        ],
      });
      expect(() => Testing.synth(chart)).not.toThrow();
    });

    test('fails for a bad name', () => {
      const { chart, foo } = setup();
      new OperatorRbac(chart, 'rbac', { name: 'Foo_Op', namespace: 'ns', crds: [foo], contract: { watches: [foo] } });
      expect(() => Testing.synth(chart)).toThrow(/\[test\/rbac\] name: must be a DNS label, got 'Foo_Op'/);
    });
  });
});

describe('contract.binds: the roles an operator binds', () => {
  const RBAC_GROUP = 'rbac.authorization.k8s.io';
  const ROLE_BINDING = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' };

  test('yields bind on each role by name, nothing broader, in the watch scope; the report explains it; no risk to accept', () => {
    const { chart, foo } = setup(true);
    const rbac = new OperatorRbac(chart, 'rbac', {
      name: 'op',
      namespace: 'ns',
      crds: [foo],
      contract: {
        watches: [foo],
        owns: [ROLE_BINDING],
        binds: [
          { kind: 'ClusterRole', name: 'admin' },
          { kind: 'ClusterRole', name: 'view' },
          { kind: 'Role', name: 'tenant-reader' },
        ],
      },
    });
    const out = Testing.synth(chart);
    const [role] = byKind(out, 'ClusterRole');
    expect(role.rules.filter((r: any) => r.verbs.includes('bind'))).toStrictEqual([
      { apiGroups: [RBAC_GROUP], resources: ['clusterroles'], resourceNames: ['admin'], verbs: ['bind'] },
      { apiGroups: [RBAC_GROUP], resources: ['clusterroles'], resourceNames: ['view'], verbs: ['bind'] },
      { apiGroups: [RBAC_GROUP], resources: ['roles'], resourceNames: ['tenant-reader'], verbs: ['bind'] },
    ]);
    expect(Warnings.collect(chart).filter((w) => /bind|risk/.test(w))).toStrictEqual([]);
    const report = renderRbacReport({
      operatorName: 'op',
      serviceAccount: { name: 'op', namespace: 'ns' },
      grants: rbac.grants,
    });
    expect(report).toContain('**Roles it binds** (`contract.binds`)');
    expect(report).toContain('- ClusterRole `admin` (granted by ClusterRole `op-manager`)');
    expect(report).toContain('- Role `tenant-reader` (granted by ClusterRole `op-manager`)');
    expect(report).toContain(
      '| rbac.authorization.k8s.io | clusterroles | admin | bind | binds ClusterRole admin (roleRef of the bindings it writes; contract.binds) |',
    );
    expect(report).toContain(
      'kubectl auth can-i bind clusterroles.rbac.authorization.k8s.io/admin -A --as=system:serviceaccount:ns:op   # yes',
    );
  });

  test('namespaced watch scope: bind by name in the Role of each watched namespace', () => {
    const { chart, foo } = setup();
    new OperatorRbac(chart, 'rbac', {
      name: 'op',
      namespace: 'ns',
      crds: [foo],
      watchNamespaces: ['a', 'b'],
      contract: { watches: [foo], owns: [ROLE_BINDING], binds: [{ kind: 'ClusterRole', name: 'edit' }] },
    });
    const roles = byKind(Testing.synth(chart), 'Role');
    expect(
      roles.map((r: any) => [r.metadata.namespace, r.rules.filter((x: any) => x.verbs.includes('bind'))]),
    ).toStrictEqual(
      ['a', 'b'].map((ns) => [
        ns,
        [{ apiGroups: [RBAC_GROUP], resources: ['clusterroles'], resourceNames: ['edit'], verbs: ['bind'] }],
      ]),
    );
  });

  test('synth warns when the contract writes bindings without binds; binds: [] says it binds only roles it holds', () => {
    const warned = setup();
    new OperatorRbac(warned.chart, 'rbac', {
      name: 'op',
      namespace: 'ns',
      crds: [warned.foo],
      contract: {
        watches: [warned.foo],
        owns: [ROLE_BINDING],
        writes: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' }],
      },
    });
    Testing.synth(warned.chart);
    expect(Warnings.collect(warned.chart).filter((w) => /contract\.binds/.test(w))).toStrictEqual([
      expect.stringContaining('contract.owns[0]: the operator writes RoleBindings but contract.binds names no role'),
      expect.stringContaining(
        'contract.writes[0]: the operator writes ClusterRoleBindings but contract.binds names no role',
      ),
    ]);
    const quiet = setup();
    new OperatorRbac(quiet.chart, 'rbac', {
      name: 'op',
      namespace: 'ns',
      crds: [quiet.foo],
      contract: { watches: [quiet.foo], owns: [ROLE_BINDING], binds: [] },
    });
    Testing.synth(quiet.chart);
    expect(Warnings.collect(quiet.chart).filter((w) => /contract\.binds/.test(w))).toStrictEqual([]);
  });

  test('a bad binds clause is refused naming the field and value', () => {
    const { chart, foo } = setup();
    new OperatorRbac(chart, 'rbac', {
      name: 'op',
      namespace: 'ns',
      crds: [foo],
      contract: {
        watches: [foo],
        binds: [
          { kind: 'Group' as any, name: 'admin' },
          { kind: 'ClusterRole', name: '*' },
          { kind: 'ClusterRole', name: 'a/b' },
        ],
      },
    });
    expect(() => Testing.synth(chart)).toThrow(
      /contract\.binds\[0\]\.kind: must be 'ClusterRole' or 'Role', got "Group"; contract\.binds\[1\]\.name: must name one role, got '\*'; contract\.binds\[2\]\.name: must be a role's name \(no '\/', '%'\), got "a\/b"/,
    );
  });
});
