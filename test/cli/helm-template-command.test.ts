import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart } from 'cdk8s';
import * as yaml from 'yaml';
import { main } from '../../cli/main';
import { CustomResource, CustomResourceDefinition, Operator, OperatorApp, OutputLayout, Schema } from '../../lib';

const GROUP = 'tpl.example.com';

/** A chart of a cluster-wide operator (no watch namespaces) with one example, in the Helm layout. */
function synthChart(dir: string): string {
  const outdir = path.join(dir, 'chart');
  const app = new OperatorApp({ outdir, layout: OutputLayout.HELM, report: false });
  const chart = new Chart(app, 'tenants');
  const crd = new CustomResourceDefinition(chart, 'Tenant', {
    group: GROUP,
    kind: 'Tenant',
    versions: [
      {
        name: 'v1',
        spec: Schema.object({ description: 'A tenant.', properties: { owners: Schema.array(Schema.string()) } }),
      },
    ],
  });
  new Operator(chart, 'tenant-operator', {
    crds: [crd],
    image: 'ghcr.io/acme/tenant-operator:1.0.0',
    contract: { watches: [crd], leaderElection: true },
  });
  new CustomResource(chart, 'example', {
    crd,
    metadata: { name: 'example', namespace: 'default' },
    spec: { owners: ['alice'] },
  });
  app.synth();
  return outdir;
}

describe('cdk8s-operator helm-template (helm template / helm lint without helm)', () => {
  let tmp: string;
  const lines: string[] = [];
  const log = (l: string) => lines.push(l);
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'helm-tpl-'));
    lines.length = 0;
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('renders the objects with the release namespace, --values and --set; examples only when enabled; crds first with --include-crds', async () => {
    const chart = synthChart(tmp);
    fs.writeFileSync(path.join(tmp, 'prod.yaml'), 'replicas: 3\nimage:\n  tag: 1.0.1\n');
    expect(
      await main(
        [
          'helm-template',
          chart,
          '--namespace',
          'platform',
          '--values',
          path.join(tmp, 'prod.yaml'),
          '--set',
          'examples.enabled=true',
          '--set',
          'image.repository=registry.local/tenant',
          '--include-crds',
        ],
        log,
      ),
    ).toBe(0);
    const objects = yaml
      .parseAllDocuments(lines.join('\n'))
      .map((d) => d.toJS())
      .filter(Boolean);
    expect(objects[0].kind).toBe('CustomResourceDefinition');
    const deployment = objects.find((o) => o.kind === 'Deployment');
    expect([
      deployment.metadata.namespace,
      deployment.spec.replicas,
      deployment.spec.template.spec.containers[0].image,
    ]).toStrictEqual(['platform', 3, 'registry.local/tenant:1.0.1']);
    expect(objects.filter((o) => o.kind === 'Tenant')).toHaveLength(1);
    expect(lines.join('\n')).toMatch(/^# Source: tenant-operator\/templates\/3-namespaced-resources\.yaml$/m);

    lines.length = 0;
    expect(await main(['helm-template', chart], log)).toBe(0);
    expect(
      yaml
        .parseAllDocuments(lines.join('\n'))
        .map((d) => d.toJS())
        .filter((o) => o?.kind === 'Tenant'),
    ).toStrictEqual([]);
  });

  test('--lint refuses values the contract cannot apply (watchNamespaces for a cluster-wide operator, latest, 2 replicas as a string) and lists each', async () => {
    const chart = synthChart(tmp);
    expect(await main(['helm-template', chart, '--lint'], log)).toBe(0);
    expect(lines).toStrictEqual([`==> Linting ${chart}\n1 chart(s) linted, 0 chart(s) failed`]);
    lines.length = 0;
    expect(
      await main(
        [
          'helm-template',
          chart,
          '--lint',
          '--set',
          'watchNamespaces={team-a}',
          '--set',
          'image.tag=latest',
          '--set',
          'replicas=two',
        ],
        log,
      ),
    ).toBe(1);
    expect(lines.join('\n')).toBe(
      [
        `Error: ${chart}: 3 problems:`,
        "  - values: must NOT have additional properties 'watchNamespaces'",
        '  - values.image.tag: must NOT be valid',
        '  - values.replicas: must be integer',
      ].join('\n'),
    );
  });

  test("a template outside the renderer's subset is an error naming the file, never passed through", async () => {
    const chart = synthChart(tmp);
    fs.writeFileSync(
      path.join(chart, 'templates', 'extra.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name | upper }}\n',
    );
    expect(await main(['helm-template', chart], log)).toBe(1);
    expect(lines.join('\n')).toContain('  - templates/extra.yaml: helm-template: unsupported function upper');
  });
});
