import { Chart, Testing } from 'cdk8s';
import { FakeCrd } from './crd-double';
import { Operator } from '../../lib';

const BASE = { status: true, leaderElection: true };

function chartWith(webhooks: object[], extra: Record<string, unknown> = {}) {
  const chart = new Chart(Testing.app(), 'test');
  const db = new FakeCrd(chart, 'db', { group: 'database.example.com', kind: 'SampleDB', plural: 'sampledbs' });
  const op = new Operator(chart, 'db-operator', {
    crds: [db],
    image: 'ghcr.io/acme/db:0.1.0',
    replicas: 2,
    watchNamespaces: ['team-a'],
    contract: { ...BASE, watches: [db], webhooks: webhooks.map((w) => ({ for: db, ...w })) } as any,
    ...extra,
  });
  return { chart, op };
}
const byKind = (out: any[], kind: string) => out.filter((o) => o.kind === kind);

describe('Operator webhooks (contract.webhooks)', () => {
  test('synth emits both configurations, the Service, the empty certificate Secret, env, port and NetworkPolicy ingress', () => {
    const { chart } = chartWith([
      { type: 'validating', matchConditions: [{ name: 'not-dry', expression: '!request.dryRun' }] },
      { type: 'defaulting', operations: ['CREATE'], failurePolicy: 'Ignore', timeoutSeconds: 5 },
    ]);
    const out = Testing.synth(chart);
    const [vwc] = byKind(out, 'ValidatingWebhookConfiguration');
    expect(vwc.metadata).toEqual({ name: 'db-operator', labels: { 'app.kubernetes.io/name': 'db-operator' } });
    expect(vwc.webhooks).toEqual([
      {
        name: 'validate.sampledbs.database.example.com',
        clientConfig: {
          service: {
            name: 'db-operator-webhook',
            namespace: 'db-operator-system',
            path: '/validate-database-example-com-v1alpha1-sampledb',
            port: 443,
          },
        },
        rules: [
          {
            apiGroups: ['database.example.com'],
            apiVersions: ['v1alpha1'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['sampledbs'],
            scope: 'Namespaced',
          },
        ],
        matchPolicy: 'Equivalent',
        namespaceSelector: {
          matchExpressions: [
            { key: 'kubernetes.io/metadata.name', operator: 'In', values: ['team-a'] },
            { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['db-operator-system', 'kube-system'] },
          ],
        },
        matchConditions: [{ name: 'not-dry', expression: '!request.dryRun' }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        failurePolicy: 'Fail',
        timeoutSeconds: 10,
      },
    ]);
    const [mwc] = byKind(out, 'MutatingWebhookConfiguration');
    expect(mwc.webhooks[0]).toMatchObject({
      name: 'default.sampledbs.database.example.com',
      failurePolicy: 'Ignore',
      timeoutSeconds: 5,
      reinvocationPolicy: 'IfNeeded',
      clientConfig: { service: { path: '/mutate-database-example-com-v1alpha1-sampledb' } },
    });
    expect(JSON.stringify(out)).not.toContain('caBundle');

    // one webhook Service, Secret and port for conversion and admission (OperatorWebhook)
    const service = out.find((o) => o.kind === 'Service' && o.metadata.name === 'db-operator-webhook');
    expect(service.spec.ports).toEqual([{ name: 'webhook', port: 443, targetPort: 9443 }]);
    const secret = out.find((o) => o.kind === 'Secret');
    expect(secret.metadata.name).toBe('db-operator-webhook-certs');
    expect(secret.data).toBeUndefined();
    const container = byKind(out, 'Deployment')[0].spec.template.spec.containers[0];
    expect(container.ports).toContainEqual({ containerPort: 9443, name: 'webhook' });
    expect(container.env).toEqual(
      expect.arrayContaining([
        { name: 'WEBHOOK_CERT_SECRET', value: 'db-operator-webhook-certs' },
        { name: 'WEBHOOK_SERVICE', value: 'db-operator-webhook' },
        { name: 'WEBHOOK_CERTIFICATES', value: 'self-managed' },
        {
          name: 'WEBHOOK_CA_INJECT',
          value: 'ValidatingWebhookConfiguration/db-operator,MutatingWebhookConfiguration/db-operator',
        },
      ]),
    );
    const [policy] = byKind(out, 'NetworkPolicy');
    expect(policy.spec.ingress).toContainEqual({
      from: [{ ipBlock: { cidr: '0.0.0.0/0' } }],
      ports: [{ port: 9443, protocol: 'TCP' }],
    });
  });

  test('RBAC: get/update of the one Secret by name, get/patch of its own configurations by name — nothing else', () => {
    const { chart, op } = chartWith([{ type: 'validating' }, { type: 'defaulting' }]);
    const out = Testing.synth(chart);
    const secretsRole = out.find((o) => o.kind === 'Role' && o.metadata.name === 'db-operator-webhook');
    expect(secretsRole.metadata.namespace).toBe('db-operator-system');
    expect(secretsRole.rules).toEqual([
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: ['db-operator-webhook-certs'],
        verbs: ['get', 'update'],
      },
    ]);
    const injection = out.find(
      (o) => o.kind === 'ClusterRole' && o.metadata.name === 'db-operator-webhook-ca-injection',
    );
    expect(injection.rules).toEqual([
      {
        apiGroups: ['admissionregistration.k8s.io'],
        resources: ['validatingwebhookconfigurations'],
        resourceNames: ['db-operator'],
        verbs: ['get', 'patch'],
      },
      {
        apiGroups: ['admissionregistration.k8s.io'],
        resources: ['mutatingwebhookconfigurations'],
        resourceNames: ['db-operator'],
        verbs: ['get', 'patch'],
      },
    ]);
    expect(op.rbac.grants.map((g) => g.purpose)).toEqual(
      expect.arrayContaining(['webhook certificates (its own Secret, by name)', 'webhook CA bundle injection']),
    );
    // no rule on secrets without resourceNames anywhere
    const secretRules = out
      .filter((o) => /Role$/.test(o.kind))
      .flatMap((o) => o.rules ?? [])
      .filter((r: any) => r.resources.includes('secrets'));
    expect(secretRules.every((r: any) => r.resourceNames?.length === 1)).toBe(true);
  });

  test('cert-manager: an Issuer chain and a Certificate, inject-ca-from on the configurations, no CA-injection RBAC', () => {
    const { chart } = chartWith([{ type: 'validating' }], { webhooks: { certificates: 'cert-manager' } });
    const out = Testing.synth(chart);
    expect(out.filter((o) => o.apiVersion === 'cert-manager.io/v1').map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(
      [
        'Issuer/db-operator-selfsigned',
        'Certificate/db-operator-webhook-ca',
        'Issuer/db-operator-webhook-ca',
        'Certificate/db-operator-webhook-certs',
      ],
    );
    const cert = out.find((o) => o.kind === 'Certificate' && o.metadata.name === 'db-operator-webhook-certs');
    expect(cert.spec).toMatchObject({
      secretName: 'db-operator-webhook-certs',
      dnsNames: [
        'db-operator-webhook.db-operator-system.svc',
        'db-operator-webhook.db-operator-system.svc.cluster.local',
      ],
    });
    expect(byKind(out, 'ValidatingWebhookConfiguration')[0].metadata.annotations).toEqual({
      'cert-manager.io/inject-ca-from': 'db-operator-system/db-operator-webhook-certs',
    });
    expect(out.find((o) => o.metadata.name === 'db-operator-webhook-ca-injection')).toBeUndefined();
  });

  test('the classic mistakes fail synth, each naming construct path, field and value, all in one report', () => {
    const { chart } = chartWith(
      [
        {
          type: 'validating',
          timeoutSeconds: 45,
          matchConditions: [
            { name: 'typo', expression: 'request.userInfo.usrname == "x"' },
            { name: 'not-bool', expression: 'request.name' },
            { name: 'broken', expression: 'object.metadata.name ==' },
          ],
        },
        { type: 'defaulting' },
      ],
      { replicas: 1, watchNamespaces: ['db-operator-system'], namespace: 'db-operator-system' },
    );
    let message = '';
    try {
      Testing.synth(chart);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(
      "[test/db-operator/Webhooks] contract.webhooks[0].timeoutSeconds: must be an integer from 1 to 30 (the apiserver's limit), got 45",
    );
    expect(message).toContain(
      "[test/db-operator/Webhooks] contract.webhooks[0].failurePolicy: 'Fail' with replicas: 1 has no PodDisruptionBudget",
    );
    expect(message).toContain(
      "[test/db-operator/Webhooks] contract.webhooks[1].failurePolicy: 'Fail' with replicas: 1",
    );
    expect(message).toContain(
      "[test/db-operator/Webhooks] contract.webhooks[0].matchConditions[0].expression: does not compile: ERROR: <input>:1:17: undefined field 'usrname', got 'request.userInfo.usrname == \"x\"'",
    );
    expect(message).toContain(
      "contract.webhooks[0].matchConditions[1].expression: must evaluate to bool, got type string in 'request.name'",
    );
    expect(message).toContain(
      'contract.webhooks[0].matchConditions[2].expression: does not compile: ERROR: <input>:1:22',
    );
    expect(message).toContain(
      "[test/db-operator/Webhooks] watchNamespaces: includes the operator's own namespace 'db-operator-system' while it serves webhooks",
    );
  });

  test('authorizer calls in matchConditions are accepted (parsed, not type-checked locally)', () => {
    const { chart } = chartWith([
      {
        type: 'validating',
        matchConditions: [
          { name: 'not-admin', expression: "!authorizer.group('').resource('pods').check('create').allowed()" },
        ],
      },
    ]);
    expect(() => Testing.synth(chart)).not.toThrow();
  });

  test('a duplicate webhook for one kind and type is refused', () => {
    const { chart } = chartWith([{ type: 'validating' }, { type: 'validating' }]);
    expect(() => Testing.synth(chart)).toThrow(
      /contract\.webhooks\[1\]: a second validating webhook for 'database\.example\.com\/SampleDB'/,
    );
  });
});
