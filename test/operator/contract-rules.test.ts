import { Chart, Testing } from 'cdk8s';
import { FakeCrd } from './crd-double';
import { ResourceScope } from '../../lib';
import { knownKind, parseApiVersion } from '../../lib/apimachinery/kinds';
import { mergeRules, RbacRule, rbacRule, rulesForContract, sortVerbs } from '../../lib/operator/contract-rules';

function setup() {
  const chart = new Chart(Testing.app(), 'test');
  const foo = new FakeCrd(chart, 'foo', { group: 'samplecontroller.k8s.io', kind: 'Foo', plural: 'foos' });
  const cluster = new FakeCrd(chart, 'cl', {
    group: 'infra.example.com',
    kind: 'Cluster',
    plural: 'clusters',
    scope: ResourceScope.CLUSTER,
  });
  return { chart, foo, cluster };
}

const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };

function find(rules: readonly RbacRule[], group: string, resource: string) {
  return rules.find((r) => r.apiGroup === group && r.resource === resource);
}

describe('rulesForContract', () => {
  test('watch → get/list/watch; own → plus create/update/patch/delete', () => {
    const { foo } = setup();
    const { rules } = rulesForContract({ watches: [foo], owns: [DEPLOYMENT] }, { crds: [foo] });
    expect(find(rules, 'samplecontroller.k8s.io', 'foos')?.verbs).toStrictEqual(['get', 'list', 'watch']);
    expect(find(rules, 'apps', 'deployments')?.verbs).toStrictEqual([
      'get',
      'list',
      'watch',
      'create',
      'update',
      'patch',
      'delete',
    ]);
  });

  test('status → <plural>/status get/update/patch; finalizers → update on <plural> and <plural>/finalizers', () => {
    const { foo } = setup();
    const { rules } = rulesForContract({ watches: [foo], status: true, finalizers: true }, { crds: [foo] });
    expect(find(rules, 'samplecontroller.k8s.io', 'foos/status')?.verbs).toStrictEqual(['get', 'update', 'patch']);
    expect(find(rules, 'samplecontroller.k8s.io', 'foos/finalizers')?.verbs).toStrictEqual(['update']);
    expect(find(rules, 'samplecontroller.k8s.io', 'foos')?.verbs).toStrictEqual([
      'get',
      'list',
      'watch',
      'update',
      'patch',
    ]);
  });

  test('owning anything needs <primary>/finalizers update for blockOwnerDeletion, even without finalizers: true', () => {
    const { foo } = setup();
    const { rules } = rulesForContract({ watches: [foo], owns: [DEPLOYMENT] }, { crds: [foo] });
    const fin = find(rules, 'samplecontroller.k8s.io', 'foos/finalizers');
    expect(fin?.verbs).toStrictEqual(['update']);
    expect(fin?.reasons.join()).toMatch(/blockOwnerDeletion/);
  });

  test('nothing beyond the contract: no status, finalizers or events rules unless declared', () => {
    const { foo } = setup();
    const { rules, leaderElectionRules } = rulesForContract({ watches: [foo] }, { crds: [foo] });
    expect(rules.map((r) => `${r.apiGroup}/${r.resource}`)).toStrictEqual(['samplecontroller.k8s.io/foos']);
    expect(leaderElectionRules).toStrictEqual([]);
  });

  test('reads → get/list; writes → create/update/patch (no delete)', () => {
    const { foo } = setup();
    const { rules } = rulesForContract(
      {
        watches: [foo],
        reads: [{ apiVersion: 'v1', kind: 'Secret' }],
        writes: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
      },
      { crds: [foo] },
    );
    expect(find(rules, '', 'secrets')?.verbs).toStrictEqual(['get', 'list']);
    expect(find(rules, '', 'configmaps')?.verbs).toStrictEqual(['create', 'update', 'patch']);
  });

  test('events and leader election', () => {
    const { foo } = setup();
    const { rules, leaderElectionRules } = rulesForContract(
      { watches: [foo], events: true, leaderElection: true },
      { crds: [foo] },
    );
    expect(find(rules, 'events.k8s.io', 'events')?.verbs).toStrictEqual(['create', 'patch']);
    expect(find(rules, '', 'events')?.verbs).toStrictEqual(['create', 'patch']);
    expect(leaderElectionRules.map((r) => [r.apiGroup, r.resource, r.verbs])).toStrictEqual([
      ['coordination.k8s.io', 'leases', ['get', 'create', 'update']],
      ['', 'events', ['create', 'patch']],
    ]);
  });

  test('a kind watched and owned appears once, with both reasons (no duplicate rules)', () => {
    const { foo } = setup();
    const { rules } = rulesForContract({ watches: [foo, DEPLOYMENT], owns: [DEPLOYMENT] }, { crds: [foo] });
    const deployments = rules.filter((r) => r.resource === 'deployments');
    expect(deployments).toHaveLength(1);
    expect(deployments[0].reasons).toStrictEqual(['watches Deployment', 'owns Deployment']);
    const keys = rules.map((r) => `${r.apiGroup}/${r.resource}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test('a reference resolves against the CRDs given, by group and kind', () => {
    const { foo } = setup();
    const { rules } = rulesForContract(
      { watches: [{ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo' }], status: true },
      { crds: [foo] },
    );
    expect(find(rules, 'samplecontroller.k8s.io', 'foos/status')).toBeDefined();
  });

  test('a third-party kind with explicit plural and scope', () => {
    const { foo } = setup();
    const { rules } = rulesForContract(
      {
        watches: [foo],
        owns: [
          {
            apiVersion: 'monitoring.coreos.com/v1',
            kind: 'ServiceMonitor',
            plural: 'servicemonitors',
            namespaced: true,
          },
        ],
      },
      { crds: [foo] },
    );
    expect(find(rules, 'monitoring.coreos.com', 'servicemonitors')?.verbs).toContain('delete');
  });

  test('no rule anywhere contains a wildcard', () => {
    const { foo } = setup();
    const { rules, leaderElectionRules } = rulesForContract(
      {
        watches: [foo, DEPLOYMENT],
        owns: [DEPLOYMENT, { apiVersion: 'v1', kind: 'Service' }],
        status: true,
        finalizers: true,
        events: true,
        leaderElection: true,
      },
      { crds: [foo] },
    );
    expect(JSON.stringify([...rules, ...leaderElectionRules])).not.toContain('*');
  });

  describe('bad input', () => {
    test('fails for a kind with no known plural', () => {
      const { foo } = setup();
      expect(() =>
        rulesForContract({ watches: [foo], owns: [{ apiVersion: 'example.com/v1', kind: 'Widget' }] }, { crds: [foo] }),
      ).toThrow(/contract\.owns\[0\]: no known plural for kind 'Widget' in 'example.com\/v1'/);
    });

    test('fails for a CRD kind referenced by the wrong group', () => {
      const { foo } = setup();
      expect(() =>
        rulesForContract({ watches: [{ apiVersion: 'other.example.com/v1', kind: 'Foo' }] }, { crds: [foo] }),
      ).toThrow(/contract\.watches\[0\]: no known plural for kind 'Foo'/);
    });

    test('fails for a namespaced watch scope with a cluster-scoped CRD', () => {
      const { foo, cluster } = setup();
      expect(() =>
        rulesForContract({ watches: [foo, cluster] }, { crds: [foo, cluster], watchNamespaces: ['team-a'] }),
      ).toThrow(
        /contract\.watches\[1\]: kind 'infra.example.com\/Cluster' is cluster-scoped, but the watch scope is namespaced \(watchNamespaces: \["team-a"\]\)/,
      );
    });

    test('fails for a namespaced watch scope owning a cluster-scoped built-in', () => {
      const { foo } = setup();
      expect(() =>
        rulesForContract(
          { watches: [foo], owns: [{ apiVersion: 'v1', kind: 'Namespace' }] },
          { crds: [foo], watchNamespaces: ['a'] },
        ),
      ).toThrow(/contract\.owns\[0\]: kind '\/Namespace' is cluster-scoped/);
    });

    test('a cluster-scoped CRD is fine cluster-wide', () => {
      const { cluster } = setup();
      expect(rulesForContract({ watches: [cluster] }, { crds: [cluster] }).rules[0].resource).toBe('clusters');
    });

    test('fails for the same kind twice in one list', () => {
      const { foo } = setup();
      expect(() =>
        rulesForContract(
          { watches: [foo], owns: [DEPLOYMENT, { apiVersion: 'apps/v1', kind: 'Deployment' }] },
          { crds: [foo] },
        ),
      ).toThrow(/contract\.owns\[1\]: duplicate kind 'apps\/Deployment' \(already at contract\.owns\[0\]\)/);
    });

    test('fails for status without a custom resource to write it on', () => {
      expect(() => rulesForContract({ watches: [DEPLOYMENT], status: true }, { crds: [] })).toThrow(
        /contract\.status: needs a custom resource in contract\.watches.*\["Deployment"\]/,
      );
    });

    test('fails for an empty watch list', () => {
      expect(() => rulesForContract({ watches: [] }, { crds: [] })).toThrow(
        /contract\.watches: must name at least one kind, got \[\]/,
      );
    });

    test('fails for a malformed apiVersion, naming the field', () => {
      expect(() => rulesForContract({ watches: [{ apiVersion: 'a/b/c', kind: 'X' }] }, { crds: [] })).toThrow(
        /contract\.watches\[0\]\.apiVersion must be '<version>' or '<group>\/<version>', got 'a\/b\/c'/,
      );
    });

    test('fails for a bad explicit plural', () => {
      expect(() =>
        rulesForContract(
          { watches: [{ apiVersion: 'x.io/v1', kind: 'X', plural: 'Xs', namespaced: true }] },
          { crds: [] },
        ),
      ).toThrow(/contract\.watches\[0\]\.plural: must be a lowercase resource name, got 'Xs'/);
    });
  });
});

describe('helpers', () => {
  test('mergeRules unites verbs and reasons per group/resource/names', () => {
    const merged = mergeRules([
      rbacRule('', 'pods', ['watch', 'get'], 'a'),
      rbacRule('', 'pods', ['list', 'get'], 'b'),
      rbacRule('apps', 'pods', ['get'], 'c'),
    ]);
    expect(merged).toHaveLength(2);
    expect(merged[0]).toStrictEqual({
      apiGroup: '',
      resource: 'pods',
      verbs: ['get', 'list', 'watch'],
      reasons: ['a', 'b'],
    });
  });

  test('sortVerbs orders the usual verbs and keeps unknown ones last', () => {
    expect(sortVerbs(['delete', 'escalate', 'get', 'get', 'create'])).toStrictEqual([
      'get',
      'create',
      'delete',
      'escalate',
    ]);
  });

  test('known kinds and apiVersion parsing', () => {
    expect(knownKind('apps', 'Deployment')).toMatchObject({ plural: 'deployments', namespaced: true });
    expect(knownKind('', 'Namespace')).toMatchObject({ plural: 'namespaces', namespaced: false });
    expect(knownKind('example.com', 'Widget')).toBeUndefined();
    expect(parseApiVersion('v1')).toStrictEqual({ group: '', version: 'v1' });
    expect(parseApiVersion('apps/v1')).toStrictEqual({ group: 'apps', version: 'v1' });
  });
});
