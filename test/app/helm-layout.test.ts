import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import Ajv from 'ajv';
import { Chart } from 'cdk8s';
import * as yaml from 'yaml';
import { CustomResource, CustomResourceDefinition, Operator, OperatorApp, OutputLayout, Schema } from '../../lib';
import { describeRealApiServer } from '../envtest';
import { helmInstallOrder, renderObjects, renderTemplate } from '../support/helm-template';

const GROUP = 'helm.example.com';

/** The pods the operator connects to (its NetworkPolicy's egress): a StatefulSet's, on 5432. */
const DATABASE_PODS = { app: 'widget-db' };

function synth(
  dir: string,
  operator: { watchNamespaces?: string[]; leaderElection?: boolean } = {
    watchNamespaces: ['helm-a', 'helm-b'],
    leaderElection: true,
  },
): string {
  const outdir = path.join(dir, 'chart');
  const app = new OperatorApp({ outdir, layout: OutputLayout.HELM, report: false, helm: { version: '1.4.0' } });
  const chart = new Chart(app, 'widgets');
  const crd = new CustomResourceDefinition(chart, 'Widget', {
    group: GROUP,
    kind: 'Widget',
    versions: [
      {
        name: 'v1',
        spec: Schema.object({
          description: 'A widget.',
          properties: { size: Schema.integer({ description: 'Size.' }) },
        }),
      },
    ],
  });
  new Operator(chart, 'widget-operator', {
    crds: [crd],
    image: 'ghcr.io/acme/widget-operator:2.3.4',
    watchNamespaces: operator.watchNamespaces,
    replicas: operator.leaderElection ? 2 : 1,
    contract: {
      watches: [crd],
      leaderElection: operator.leaderElection,
      owns: [{ apiVersion: 'apps/v1', kind: 'StatefulSet' }],
      connectsTo: [{ podsOf: { apiVersion: 'apps/v1', kind: 'StatefulSet' }, podLabels: DATABASE_PODS, ports: [5432] }],
    },
  });
  new CustomResource(chart, 'example', {
    crd,
    metadata: { name: 'example', namespace: operator.watchNamespaces?.[0] ?? 'default' },
    spec: { size: 3 },
  });
  app.synth();
  return outdir;
}

const read = (dir: string, f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
const templatesOf = (dir: string) =>
  fs
    .readdirSync(path.join(dir, 'templates'))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => read(dir, `templates/${f}`));

describe('OutputLayout.HELM', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'helm-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('CRDs in crds/ only, templates free of CRDs, Chart.yaml with version and appVersion, values wired into the templates', () => {
    const dir = synth(tmp);
    expect(fs.readdirSync(path.join(dir, 'crds'))).toStrictEqual([`widgets.${GROUP}.yaml`]);
    expect(yaml.parse(read(dir, `crds/widgets.${GROUP}.yaml`)).kind).toBe('CustomResourceDefinition');
    expect(fs.readdirSync(path.join(dir, 'templates')).sort()).toStrictEqual([
      '0-namespaces.yaml',
      '3-namespaced-resources.yaml',
      '4-custom-resources.yaml',
      'NOTES.txt',
    ]);
    expect(templatesOf(dir).join('\n')).not.toMatch(/kind: CustomResourceDefinition/);
    expect(yaml.parse(read(dir, 'Chart.yaml'))).toMatchObject({
      apiVersion: 'v2',
      name: 'widget-operator',
      version: '1.4.0',
      appVersion: '2.3.4',
      type: 'application',
    });
    const values = yaml.parse(read(dir, 'values.yaml'));
    expect(values).toStrictEqual({
      image: { repository: 'ghcr.io/acme/widget-operator', tag: '2.3.4' },
      replicas: 2,
      watchNamespaces: ['helm-a', 'helm-b'],
      resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '10m', memory: '64Mi' } },
      examples: { enabled: false },
      networkPolicy: { extraEgress: [] },
    });
    const namespaced = read(dir, 'templates/3-namespaced-resources.yaml');
    expect(namespaced).toContain('image: {{ printf "%s:%s" .Values.image.repository .Values.image.tag | quote }}');
    expect(namespaced).toContain('replicas: {{ .Values.replicas }}');
    expect(namespaced).toContain('value: {{ join "," .Values.watchNamespaces | quote }}');
    expect(namespaced).toMatch(/resources: \{\{- toYaml \.Values\.resources \| nindent \d+ \}\}/);
    expect(namespaced).toContain('{{- range $ns := .Values.watchNamespaces }}');
    // the default values render to exactly what the apply-order layout would hold for the operator
    const rendered = renderObjects(templatesOf(dir), values, { namespace: 'widget-operator-system' });
    const deployment = rendered.find((o) => o.kind === 'Deployment');
    expect(deployment.spec.template.spec.containers[0]).toMatchObject({
      image: 'ghcr.io/acme/widget-operator:2.3.4',
      resources: values.resources,
    });
    expect(
      rendered
        .filter((o) => o.kind === 'Role' && o.metadata.name === 'widget-operator-manager')
        .map((o) => o.metadata.namespace),
    ).toStrictEqual(['helm-a', 'helm-b']);
  });

  test('the NetworkPolicy follows the values: egress to the managed pods in each watched namespace, plus networkPolicy.extraEgress', () => {
    const dir = synth(tmp);
    const values = yaml.parse(read(dir, 'values.yaml'));
    const policyWith = (v: any) =>
      renderObjects(templatesOf(dir), v).find(
        (o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'widget-operator',
      );
    const databaseRule = (policy: any) =>
      policy.spec.egress.find((r: any) => r.ports.some((p: any) => p.port === 5432));
    const peer = (ns: string) => ({
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
      podSelector: { matchLabels: DATABASE_PODS },
    });
    // the defaults render what the apply-order layout holds
    const defaults = policyWith(values);
    expect(databaseRule(defaults).to).toStrictEqual([peer('helm-a'), peer('helm-b')]);
    expect(defaults.spec.egress).toHaveLength(3);
    // other namespaces and extra egress
    const extra = { to: [{ ipBlock: { cidr: '10.20.0.0/16' } }], ports: [{ protocol: 'TCP', port: 9000 }] };
    const other = policyWith({ ...values, watchNamespaces: ['helm-c'], networkPolicy: { extraEgress: [extra] } });
    expect(databaseRule(other).to).toStrictEqual([peer('helm-c')]);
    expect(other.spec.egress).toHaveLength(4);
    expect(other.spec.egress[3]).toStrictEqual(extra);
    expect(other.spec.egress.slice(0, 2)).toStrictEqual(defaults.spec.egress.slice(0, 2));
    // what Helm refuses before rendering
    const validate = new Ajv({ allErrors: true, allowUnionTypes: true }).compile(
      JSON.parse(read(dir, 'values.schema.json')),
    );
    expect(validate({ ...values, networkPolicy: { extraEgress: [extra] } })).toBe(true);
    for (const bad of [
      { to: [{ ipBlock: { cidr: '10.0.0.0/8' } }], ports: [{ port: 70000 }] },
      { to: [{ ipblock: { cidr: '10.0.0.0/8' } }] },
      { to: [{}] },
      { ports: [{ protocol: 'ICMP', port: 1 }] },
    ]) {
      expect({ bad, valid: validate({ ...values, networkPolicy: { extraEgress: [bad] } }) }).toStrictEqual({
        bad,
        valid: false,
      });
    }
  });

  test('values.schema.json accepts the defaults and refuses what Helm should refuse (latest, 0 replicas, a bad namespace, an unknown key)', () => {
    const dir = synth(tmp);
    const schema = JSON.parse(read(dir, 'values.schema.json'));
    const validate = new Ajv({ allErrors: true, allowUnionTypes: true }).compile(schema);
    const values = yaml.parse(read(dir, 'values.yaml'));
    expect(validate(values)).toBe(true);
    for (const bad of [
      { ...values, image: { ...values.image, tag: 'latest' } },
      { ...values, replicas: 0 },
      { ...values, watchNamespaces: ['Team_A'] },
      { ...values, replica: 2 },
      { ...values, resources: { limits: { cpu: 'lots' } } },
    ]) {
      expect({ bad, valid: validate(bad) }).toStrictEqual({ bad, valid: false });
    }
  });

  test('synth checks the default values against values.schema.json (ajv): an image pinned by digest has no tag, and synth says so', () => {
    const app = new OperatorApp({ outdir: path.join(tmp, 'chart'), layout: OutputLayout.HELM, report: false });
    const chart = new Chart(app, 'widgets');
    const crd = new CustomResourceDefinition(chart, 'Widget', {
      group: GROUP,
      kind: 'Widget',
      versions: [{ name: 'v1', spec: Schema.object({ description: 'A widget.', properties: {} }) }],
    });
    new Operator(chart, 'widget-operator', {
      crds: [crd],
      image: `ghcr.io/acme/widget-operator@sha256:${'a'.repeat(64)}`,
      contract: { watches: [crd] },
    });
    expect(() => app.synth()).toThrow(/values\.yaml\.image\.tag: must match pattern .* \(got ""\)/);
    expect(fs.existsSync(path.join(tmp, 'chart'))).toBe(false);
  });

  test('a cluster-wide operator offers no watchNamespaces value (its RBAC is a ClusterRole) and refuses one; one replica without leader election', () => {
    const dir = synth(tmp, {});
    const schema = JSON.parse(read(dir, 'values.schema.json'));
    const validate = new Ajv({ allowUnionTypes: true }).compile(schema);
    const values = yaml.parse(read(dir, 'values.yaml'));
    expect(Object.keys(values)).not.toContain('watchNamespaces');
    expect(validate(values)).toBe(true);
    expect(validate({ ...values, watchNamespaces: ['a'] })).toBe(false);
    expect(validate.errors).toMatchObject([
      { keyword: 'additionalProperties', params: { additionalProperty: 'watchNamespaces' } },
    ]);
    expect(validate({ ...values, replicas: 2 })).toBe(false);
    const rendered = renderObjects(templatesOf(dir), values, { namespace: 'ops' });
    expect(
      rendered
        .find((o) => o.kind === 'Deployment')
        .spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'WATCH_NAMESPACE').value,
    ).toBe('');
    expect(
      renderTemplate(read(dir, 'templates/NOTES.txt'), values, {
        namespace: 'ops',
        releaseName: 'w',
        chartName: 'widget-operator',
      }),
    ).toContain('It watches every namespace (a ClusterRole).');
  });

  test("the operator's namespace is the release's: no template names it, the chart does not create it, subjects and objects follow -n", () => {
    const dir = synth(tmp);
    expect(templatesOf(dir).join('\n')).not.toContain('widget-operator-system');
    const values = yaml.parse(read(dir, 'values.yaml'));
    const rendered = renderObjects(templatesOf(dir), values, { namespace: 'platform-ops' });
    expect(rendered.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name)).toStrictEqual([
      'helm-a',
      'helm-b',
    ]);
    expect(rendered.find((o) => o.kind === 'Deployment').metadata.namespace).toBe('platform-ops');
    expect(rendered.find((o) => o.kind === 'ServiceAccount').metadata.namespace).toBe('platform-ops');
    const subjects = rendered.filter((o) => /Binding$/.test(o.kind)).flatMap((b) => b.subjects ?? []);
    expect(subjects.length).toBeGreaterThan(0);
    expect([...new Set(subjects.map((x: { namespace: string }) => x.namespace))]).toStrictEqual(['platform-ops']);
  });

  test('example custom resources are not installed unless examples.enabled; NOTES.txt says how to check the release', () => {
    const dir = synth(tmp);
    const values = yaml.parse(read(dir, 'values.yaml'));
    expect(values.examples).toStrictEqual({ enabled: false });
    expect(
      renderObjects(templatesOf(dir), values, { namespace: 'ops' }).filter((o) => o.kind === 'Widget'),
    ).toStrictEqual([]);
    const widgets = renderObjects(
      templatesOf(dir),
      { ...values, examples: { enabled: true } },
      { namespace: 'ops' },
    ).filter((o) => o.kind === 'Widget');
    expect(widgets.map((w) => `${w.metadata.namespace}/${w.metadata.name}`)).toStrictEqual(['helm-a/example']);
    const notes = renderTemplate(read(dir, 'templates/NOTES.txt'), values, {
      namespace: 'ops',
      releaseName: 'w',
      chartName: 'widget-operator',
    });
    expect(notes).toContain('widget-operator is installed in ops (release w).');
    expect(notes).toContain('kubectl -n ops rollout status deployment/widget-operator');
    expect(notes).toContain('It watches the namespaces helm-a, helm-b (a Role in each).');
    expect(notes).toContain(`kubectl get widgets.${GROUP} -A`);
    expect(notes).toContain('Example custom resources are not installed unless --set examples.enabled=true.');
    expect(renderTemplate(read(dir, 'templates/NOTES.txt'), { ...values, examples: { enabled: true } }, {})).toContain(
      'The example custom resources were created (examples.enabled).',
    );
  });
});

describeRealApiServer(
  'OutputLayout.HELM on a real kube-apiserver',
  (plane) => {
    test("crds/ first, then the templates rendered with other values, in Helm's install order: every object accepted, the values took effect", async () => {
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'helm-apply-'));
      try {
        const dir = synth(tmp);
        const crds = fs.readdirSync(path.join(dir, 'crds')).map((f) => yaml.parse(read(dir, `crds/${f}`)));
        await plane().installCrds(crds);
        const extraEgress = [{ to: [{ ipBlock: { cidr: '10.20.0.0/16' } }], ports: [{ protocol: 'TCP', port: 9000 }] }];
        const values = {
          ...yaml.parse(read(dir, 'values.yaml')),
          watchNamespaces: ['helm-a'],
          replicas: 3,
          image: { repository: 'registry.local/widget', tag: '9.9.9' },
          networkPolicy: { extraEgress },
          examples: { enabled: true },
        };
        // helm install -n widget-operator-system --create-namespace
        await plane().createNamespace('widget-operator-system');
        const objects = helmInstallOrder(
          renderObjects(templatesOf(dir), values, { namespace: 'widget-operator-system' }),
        );
        expect(objects[0].kind).toBe('Namespace');
        expect(objects[objects.length - 1].kind).toBe('Widget');
        // one object at a time, in that order (the CRDs are given along so the Widget's plural is known)
        for (const o of objects) await plane().applyObjects([...crds, o]);
        const get = async (p: string) => (await plane().request('GET', p)).body;
        const deployment = await get('/apis/apps/v1/namespaces/widget-operator-system/deployments/widget-operator');
        expect(deployment.spec.replicas).toBe(3);
        expect(deployment.spec.template.spec.containers[0].image).toBe('registry.local/widget:9.9.9');
        expect(
          deployment.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'WATCH_NAMESPACE')
            .value,
        ).toBe('helm-a');
        expect(
          (
            await plane().request(
              'GET',
              '/apis/rbac.authorization.k8s.io/v1/namespaces/helm-a/roles/widget-operator-manager',
            )
          ).code,
        ).toBe(200);
        expect(
          (
            await plane().request(
              'GET',
              '/apis/rbac.authorization.k8s.io/v1/namespaces/helm-b/roles/widget-operator-manager',
            )
          ).code,
        ).toBe(404);
        expect((await get(`/apis/${GROUP}/v1/namespaces/helm-a/widgets/example`)).spec.size).toBe(3);
        const policy = await get(
          '/apis/networking.k8s.io/v1/namespaces/widget-operator-system/networkpolicies/widget-operator',
        );
        expect(policy.spec.egress.find((r: any) => r.ports.some((p: any) => p.port === 5432)).to).toStrictEqual([
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'helm-a' } },
            podSelector: { matchLabels: DATABASE_PODS },
          },
        ]);
        expect(policy.spec.egress[policy.spec.egress.length - 1]).toStrictEqual(extraEgress[0]);
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
  },
  { shared: true },
);
