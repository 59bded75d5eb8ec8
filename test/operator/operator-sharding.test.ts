/** `Operator({ sharding })`: N ring members, their Lease RBAC (and nothing on the sharded kinds), a PodDisruptionBudget, the report. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { FakeCrd } from './crd-double';
import { Operator, OperatorApp, OperatorShardingOptions, OutputLayout } from '../../lib';

const CONTRACT = { owns: [{ apiVersion: 'apps/v1', kind: 'Deployment' }], status: true, events: true, sharding: true };

function sharded(extra: Record<string, unknown> = {}, contract: Record<string, unknown> = CONTRACT) {
  const chart = new Chart(Testing.app(), 'test');
  const foo = new FakeCrd(chart, 'foo', { group: 'samplecontroller.k8s.io', kind: 'Foo', plural: 'foos' });
  new Operator(chart, 'foo-operator', {
    crds: [foo],
    image: 'ghcr.io/acme/foo:0.1.0',
    contract: { watches: [foo], ...contract },
    sharding: { replicas: 4, key: 'namespace' },
    ...extra,
  });
  return chart;
}

/** An app with the sharded Foo operator, synthesized to a folder: its objects and its RBAC report. */
function synthWithReport(contract: Record<string, unknown>, sharding: OperatorShardingOptions) {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'sharding-'));
  const app = new OperatorApp({ outdir, layout: OutputLayout.APPLY_ORDER });
  const chart = new Chart(app, 'foo');
  const foo = new FakeCrd(chart, 'crd', { group: 'samplecontroller.k8s.io', kind: 'Foo', plural: 'foos' });
  new Operator(chart, 'foo-operator', {
    crds: [foo],
    image: 'ghcr.io/acme/foo:0.1.0',
    contract: { watches: [foo], ...contract },
    sharding,
  });
  const out = Testing.synth(chart);
  app.synth();
  return { out, report: fs.readFileSync(path.join(outdir, 'foo-operator.rbac-report.md'), 'utf8') };
}

describe('Operator sharding', () => {
  test('N members with the ring flags, no leader election needed, a PodDisruptionBudget allowing one down', () => {
    const out = Testing.synth(sharded());
    const deployment = out.find((o) => o.kind === 'Deployment');
    expect(deployment.spec.replicas).toBe(4);
    expect(deployment.spec.template.spec.containers[0].args).toEqual(
      // the members started together wait for all 4 before they list their share
      expect.arrayContaining(['--sharding-ring=foo-operator', '--sharding-key=namespace', '--sharding-replicas=4']),
    );
    expect(deployment.spec.template.spec.containers[0].args).not.toContain('--leader-elect');
    const pdb = out.find((o) => o.kind === 'PodDisruptionBudget');
    expect(pdb.spec.maxUnavailable).toBe(1);
  });

  test('RBAC: member Leases in the operator namespace only; on the sharded kinds only patch (the shard label) beyond the contract', () => {
    const out = Testing.synth(sharded());
    const roles = out.filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole');
    const leaseRules = roles.flatMap((r) =>
      (r.rules ?? [])
        .filter((rule: any) => rule.resources.includes('leases'))
        .map((rule: any) => ({ kind: r.kind, ns: r.metadata.namespace, verbs: rule.verbs })),
    );
    expect(leaseRules).toEqual([
      { kind: 'Role', ns: 'foo-operator-system', verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'] },
    ]);
    const fooRules = roles.flatMap((r) => (r.rules ?? []).filter((rule: any) => rule.resources.includes('foos')));
    expect(fooRules.flatMap((r: any) => r.verbs).sort()).toEqual(['get', 'list', 'patch', 'watch']);
  });

  test('the RBAC report says how the work is split', () => {
    const { report } = synthWithReport(CONTRACT, { replicas: 3 });
    expect(report).toContain('## Sharding: how the work is split');
    expect(report).toContain('3 replicas form the shard ring `foo-operator`');
    expect(report).toContain("their UID (an owned object: its controller owner's UID)");
    expect(report).toContain('the label `shard.cdk8s-operator.io/foo-operator=<member>`');
    expect(report).toMatch(/\| samplecontroller\.k8s\.io \| foos \| .* \| .*patch.* \| .*shard assignment label/);
    expect(report).toContain(
      '| coordination.k8s.io | leases | all | get, list, watch, create, update, delete | shard ring:',
    );
  });

  test("assignment 'server' (or 'hash'): the flag, no patch on the sharded kinds, and the report says so", () => {
    for (const assignment of ['server', 'hash'] as const) {
      const { out, report } = synthWithReport({ ...CONTRACT, sharding: { assignment } }, { replicas: 2 });
      const args = out.find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].args;
      expect(args).toEqual(expect.arrayContaining([`--sharding-assignment=${assignment}`]));
      const fooRules = out
        .filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole')
        .flatMap((r) => (r.rules ?? []).filter((rule: any) => rule.resources.includes('foos')));
      expect(fooRules.flatMap((r: any) => r.verbs).sort()).toEqual(['get', 'list', 'watch']);
      expect(report).toContain(
        `Assignment \`${assignment}\`: nothing is written on the sharded objects (no \`patch\` for it)`,
      );
      expect(report).not.toContain('shard assignment label');
      expect(report).not.toContain('shard.cdk8s-operator.io/');
    }
  });

  test('labels (contract.sharding: true) pass --sharding-assignment=labels', () => {
    const args = Testing.synth(sharded()).find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].args;
    expect(args).toContain('--sharding-assignment=labels');
  });

  test('bad settings fail synth naming the field and value', () => {
    expect(() => Testing.synth(sharded({ sharding: { replicas: 0 } }))).toThrow(
      /\[test\/foo-operator\] sharding\.replicas: must be an integer >= 1, got 0/,
    );
    expect(() => Testing.synth(sharded({}, { ...CONTRACT, sharding: false }))).toThrow(
      /sharding: the controller needs its member Leases: set contract\.sharding: true/,
    );
    expect(() => Testing.synth(sharded({ replicas: 2 }))).toThrow(
      /replicas: a sharded operator runs sharding\.replicas members, got replicas: 2 as well/,
    );
    expect(() => Testing.synth(sharded({ sharding: { replicas: 2, key: 'name' } }))).toThrow(
      /sharding\.key: must be 'uid' or 'namespace', got 'name'/,
    );
    expect(() => Testing.synth(sharded({ sharding: { replicas: 2, assignment: 'server' } }))).toThrow(
      /sharding\.assignment: 'server' differs from contract\.sharding's 'labels' \(only 'labels' is granted patch on the sharded kinds\); set contract\.sharding: \{ assignment: 'server' \} and omit sharding\.assignment/,
    );
    expect(() => Testing.synth(sharded({}, { ...CONTRACT, sharding: { assignment: 'labelz' } }))).toThrow(
      /contract\.sharding\.assignment: must be one of labels, hash, server, got "labelz"/,
    );
  });

  describe('the labelling webhook', () => {
    const webhookObjects = (out: any[]) => ({
      configuration: out.find((o) => o.kind === 'MutatingWebhookConfiguration'),
      args: out.find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].args as string[],
      env: out.find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].env as any[],
      service: out.find((o) => o.kind === 'Service' && o.metadata.name === 'foo-operator-webhook'),
    });

    test("labels with key 'namespace': CREATE of the watched kinds, Ignore, 2 s, only unlabelled objects, served by every member", () => {
      const { configuration, args, env, service } = webhookObjects(Testing.synth(sharded()));
      expect(args).toContain('--sharding-label-webhook');
      expect(configuration.metadata.name).toBe('foo-operator');
      expect(configuration.webhooks).toEqual([
        {
          name: 'label-shard.foos.samplecontroller.k8s.io',
          clientConfig: {
            service: {
              name: 'foo-operator-webhook',
              namespace: 'foo-operator-system',
              path: '/label-shard-foo-operator',
              port: 443,
            },
          },
          rules: [
            {
              apiGroups: ['samplecontroller.k8s.io'],
              apiVersions: ['*'],
              operations: ['CREATE'],
              resources: ['foos'],
              scope: 'Namespaced',
            },
          ],
          matchPolicy: 'Equivalent',
          namespaceSelector: {
            matchExpressions: [
              { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['foo-operator-system', 'kube-system'] },
            ],
          },
          objectSelector: {
            matchExpressions: [{ key: 'shard.cdk8s-operator.io/foo-operator', operator: 'DoesNotExist' }],
          },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Ignore',
          timeoutSeconds: 2,
          reinvocationPolicy: 'Never',
        },
      ]);
      // The certificates of the operator's other webhooks: self-managed, the CA injected into this configuration.
      expect(service.spec.ports).toEqual([{ name: 'webhook', port: 443, targetPort: 9443 }]);
      expect(env).toEqual(
        expect.arrayContaining([
          { name: 'WEBHOOK_CA_INJECT', value: 'MutatingWebhookConfiguration/foo-operator' },
          { name: 'WEBHOOK_CERT_SECRET', value: 'foo-operator-webhook-certs' },
        ]),
      );
    });

    test('its RBAC: the CA injection on its configuration by name and the certificate Secret by name; the report names it', () => {
      const { out, report } = synthWithReport(CONTRACT, { replicas: 2, key: 'namespace' });
      const rules = out
        .filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole')
        .flatMap((r) => (r.rules ?? []).map((rule: any) => ({ role: r.metadata.name, ...rule })));
      expect(rules.filter((r: any) => r.resources.includes('mutatingwebhookconfigurations'))).toEqual([
        {
          role: 'foo-operator-webhook-ca-injection',
          apiGroups: ['admissionregistration.k8s.io'],
          resources: ['mutatingwebhookconfigurations'],
          resourceNames: ['foo-operator'],
          verbs: ['get', 'patch'],
        },
      ]);
      expect(rules.filter((r: any) => r.resources.includes('secrets'))).toEqual([
        expect.objectContaining({ resourceNames: ['foo-operator-webhook-certs'], verbs: ['get', 'update'] }),
      ]);
      expect(report).toContain(
        'The labelling webhook writes the label in the create request instead: MutatingWebhookConfiguration `foo-operator` (`label-shard.foos.samplecontroller.k8s.io`) sends CREATE of objects without the label to every member at `/label-shard-foo-operator`',
      );
      expect(report).toContain('`failurePolicy: Ignore`, `timeoutSeconds: 2`');
    });

    test("key 'uid': off by default; asked for, only objects created with a controller owner are sent to it", () => {
      const off = webhookObjects(Testing.synth(sharded({ sharding: { replicas: 2, key: 'uid' } })));
      expect([off.configuration, off.service, off.args.includes('--sharding-label-webhook')]).toEqual([
        undefined,
        undefined,
        false,
      ]);
      const on = webhookObjects(Testing.synth(sharded({ sharding: { replicas: 2, key: 'uid', labelWebhook: true } })));
      expect(on.args).toContain('--sharding-label-webhook');
      expect(on.configuration.webhooks[0].matchConditions).toEqual([
        {
          name: 'has-controller-owner',
          expression:
            'has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(r, has(r.controller) && r.controller)',
        },
      ]);
      const { report } = synthWithReport(CONTRACT, { replicas: 2, labelWebhook: true });
      expect(report).toContain('With `key: uid` only objects created with a controller owner are sent to it');
    });

    test("key 'namespace' with labelWebhook: false, or hash/server assignments: no webhook", () => {
      const off = webhookObjects(
        Testing.synth(sharded({ sharding: { replicas: 2, key: 'namespace', labelWebhook: false } })),
      );
      expect(off.configuration).toBeUndefined();
      const hash = webhookObjects(Testing.synth(sharded({}, { ...CONTRACT, sharding: { assignment: 'hash' } })));
      expect([hash.configuration, hash.args.includes('--sharding-label-webhook')]).toEqual([undefined, false]);
      expect(() =>
        Testing.synth(
          sharded(
            { sharding: { replicas: 2, labelWebhook: true } },
            { ...CONTRACT, sharding: { assignment: 'server' } },
          ),
        ),
      ).toThrow(
        /sharding\.labelWebhook: true needs the labels assignment, got 'server' \(nothing is labelled\); remove it/,
      );
    });

    test("beside the kind's own defaulting webhook: one configuration, two entries; cert-manager's CA injection too", () => {
      const chart = new Chart(Testing.app(), 'test');
      const foo = new FakeCrd(chart, 'foo', { group: 'samplecontroller.k8s.io', kind: 'Foo', plural: 'foos' });
      new Operator(chart, 'foo-operator', {
        crds: [foo],
        image: 'ghcr.io/acme/foo:0.1.0',
        contract: {
          watches: [foo],
          ...CONTRACT,
          webhooks: [{ type: 'defaulting', for: foo, failurePolicy: 'Ignore' }],
        },
        webhooks: { certificates: 'cert-manager' },
        sharding: { replicas: 2, key: 'namespace' },
      });
      const { configuration } = webhookObjects(Testing.synth(chart));
      expect(configuration.webhooks.map((w: any) => [w.name, w.clientConfig.service.path])).toEqual([
        ['default.foos.samplecontroller.k8s.io', '/mutate-samplecontroller-k8s-io-v1alpha1-foo'],
        ['label-shard.foos.samplecontroller.k8s.io', '/label-shard-foo-operator'],
      ]);
      expect(configuration.metadata.annotations).toEqual({
        'cert-manager.io/inject-ca-from': 'foo-operator-system/foo-operator-webhook-certs',
      });
    });
  });

  describe("ranges that follow the namespaces (contract.sharding.ranges: 'namespaces')", () => {
    const RANGES = { ...CONTRACT, sharding: { assignment: 'server', ranges: 'namespaces' } };
    const namespaceRules = (out: any[]) =>
      out
        .filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole')
        .flatMap((r) =>
          (r.rules ?? [])
            .filter((rule: any) => rule.resources.includes('namespaces'))
            .map((rule: any) => ({ kind: r.kind, verbs: rule.verbs, names: rule.resourceNames })),
        );

    test('the members get --sharding-ranges=namespaces and read the namespaces cluster-wide; the report says why', () => {
      const { out, report } = synthWithReport(RANGES, { replicas: 4, key: 'namespace' });
      const args = out.find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].args;
      expect(args).toEqual(
        expect.arrayContaining([
          '--sharding-assignment=server',
          '--sharding-key=namespace',
          '--sharding-ranges=namespaces',
        ]),
      );
      expect(namespaceRules(out)).toEqual([{ kind: 'ClusterRole', verbs: ['get', 'list', 'watch'], names: undefined }]);
      expect(report).toContain("The hash ranges follow the namespaces (`contract.sharding.ranges: 'namespaces'`)");
      expect(report).toContain("the cluster's namespaces (it reads them: `get`, `list`, `watch` on namespaces, above)");
    });

    test('with watched namespaces it cuts by those and reads no namespace; even ranges read none either', () => {
      const watched = Testing.synth(sharded({ watchNamespaces: ['team-a', 'team-b'] }, RANGES));
      expect(namespaceRules(watched)).toEqual([]);
      const even = Testing.synth(sharded({}, { ...CONTRACT, sharding: { assignment: 'server' } }));
      expect(namespaceRules(even)).toEqual([]);
      expect(even.find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].args).not.toContain(
        '--sharding-ranges=namespaces',
      );
    });

    test('ranges without assignment server, an unknown value, or key uid: one report naming each field', () => {
      expect(() => Testing.synth(sharded({}, { ...CONTRACT, sharding: { ranges: 'namespaces' } }))).toThrow(
        /contract\.sharding\.ranges: 'namespaces' cuts the apiserver's hash ranges: needs assignment 'server', got "labels"/,
      );
      expect(() =>
        Testing.synth(sharded({}, { ...CONTRACT, sharding: { assignment: 'server', ranges: 'tenants' } })),
      ).toThrow(/contract\.sharding\.ranges: must be 'even' or 'namespaces', got "tenants"/);
      expect(() => Testing.synth(sharded({ sharding: { replicas: 2, key: 'uid' } }, RANGES))).toThrow(
        /sharding\.key: contract\.sharding\.ranges 'namespaces' cuts the hash ranges by namespace: needs key 'namespace', got 'uid'/,
      );
    });
  });
});
