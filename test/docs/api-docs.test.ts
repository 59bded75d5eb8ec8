import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import {
  ApiDocs,
  CustomResourceDefinition,
  Operator,
  OperatorApp,
  renderOperatorDiagram,
  Schema,
  Warnings,
} from '../../lib';

function fooApp(outdir: string, props: { docs?: boolean; described?: boolean } = {}) {
  const app = new OperatorApp({ outdir, report: false, docs: props.docs });
  const chart = new Chart(app, 'foo');
  const d = (text: string) => (props.described ? { description: text } : {});
  const crd = new CustomResourceDefinition(chart, 'FooCrd', {
    group: 'samplecontroller.k8s.io',
    kind: 'Foo',
    annotations: { 'api-approved.kubernetes.io': 'unapproved, experimental-only' },
    versions: [
      {
        name: 'v1alpha1',
        spec: Schema.object({ ...d('Spec.'), properties: { replicas: Schema.integer({ ...d('Pods.'), minimum: 1 }) } }),
      },
    ],
  });
  new Operator(chart, 'foo-controller', {
    crds: [crd],
    image: 'ghcr.io/acme/foo:0.1.0',
    contract: {
      watches: [crd],
      owns: [{ apiVersion: 'apps/v1', kind: 'Deployment' }],
      reads: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
      status: true,
    },
  });
  new ApiObject(chart, 'example', {
    apiVersion: 'samplecontroller.k8s.io/v1alpha1',
    kind: 'Foo',
    metadata: { name: 'ex', namespace: 'default' },
    spec: { replicas: 1 },
  });
  return app;
}

describe('ApiDocs', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('OperatorApp with docs writes a page per CRD and operator and an index into docs/', () => {
    const outdir = path.join(dir, 'dist');
    fooApp(outdir, { docs: true, described: true }).synth();
    expect(fs.readdirSync(path.join(outdir, 'docs')).sort()).toStrictEqual([
      'README.md',
      'foo-controller.md',
      'foos.samplecontroller.k8s.io.md',
    ]);
    const crdPage = fs.readFileSync(path.join(outdir, 'docs', 'foos.samplecontroller.k8s.io.md'), 'utf8');
    expect(crdPage).toContain('| `.spec.replicas` | `integer` |  |  | value ≥ 1 | Pods. |');
    expect(crdPage).toContain('name: ex'); // the example object of the app
    const index = fs.readFileSync(path.join(outdir, 'docs', 'README.md'), 'utf8');
    expect(index).toContain('- [Operator foo-controller](foo-controller.md)');
  });

  test('no docs folder unless asked', () => {
    const outdir = path.join(dir, 'dist');
    fooApp(outdir, { described: true }).synth();
    expect(fs.existsSync(path.join(outdir, 'docs'))).toBe(false);
  });

  test('operator page: Mermaid diagram from CRD to controller to owned and read kinds, plus the RBAC it holds', () => {
    const app = fooApp(path.join(dir, 'dist'), { described: true });
    const page = ApiDocs.pages(app).find((p) => p.file === 'foo-controller.md')!.content;
    expect(page).toContain('- [Foo](foos.samplecontroller.k8s.io.md) (`foos.samplecontroller.k8s.io`)');
    const diagram = page.slice(page.indexOf('```mermaid'), page.indexOf('```', page.indexOf('```mermaid') + 3));
    expect(diagram).toContain('k0[("Foo<br/>foos.samplecontroller.k8s.io")]');
    expect(diagram).toContain('k0 -->|watches| ctrl');
    expect(diagram).toContain('ctrl -->|owns| k1');
    expect(diagram).toContain('k1["Deployment<br/>apps"]');
    expect(diagram).toContain('ctrl -.->|reads| k2');
    expect(diagram).toContain('ctrl -->|writes status| k0');
    expect(diagram).toMatch(
      /rbac0\{\{"ClusterRole foo-controller-manager<br\/>samplecontroller.k8s.io\/foos: get,list,watch<br\/>/,
    );
    expect(page).toContain(
      '| `apps` | `deployments` | get, list, watch, create, update, patch, delete | owns Deployment |',
    );
  });

  test('renderOperatorDiagram escapes quotes and angle brackets in labels', () => {
    const text = renderOperatorDiagram({ name: 'x"<y>', namespace: 'ns', crds: [], grants: [] });
    expect(text).toContain('Deployment x#quot;#lt;y#gt;');
  });

  test('warns about fields without a description in built CRDs, once per version', () => {
    const app = fooApp(path.join(dir, 'dist'));
    app.synth();
    expect(Warnings.collect(app).filter((w) => w.includes('docs:'))).toStrictEqual([
      '[foo/FooCrd] docs: v1alpha1: 2 schema fields have no description (kubectl explain and the API reference show nothing for them): .spec, .spec.replicas',
    ]);
  });

  test('does not warn for imported CRDs', () => {
    const app = new OperatorApp({ outdir: path.join(dir, 'dist'), report: false });
    const chart = new Chart(app, 'x');
    const built = new CustomResourceDefinition(chart, 'B', {
      group: 'b.example.com',
      kind: 'B',
      versions: [{ name: 'v1', spec: Schema.object({ properties: { a: Schema.string() } }) }],
    });
    CustomResourceDefinition.fromManifest(chart, 'Raw', {
      ...built.toManifest(),
      metadata: { name: 'cs.c.example.com' },
      spec: {
        ...built.toManifest().spec,
        group: 'c.example.com',
        names: { kind: 'C', plural: 'cs', singular: 'c', listKind: 'CList' },
      },
    });
    app.synth();
    expect(
      Warnings.collect(app)
        .filter((w) => w.includes('docs:'))
        .map((w) => w.split(' ')[0]),
    ).toStrictEqual(['[x/B]']);
  });
});
