import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import * as YAML from 'yaml';
import { OperatorApp, OutputFiles, OutputLayout } from '../../lib';
import { APPLY_STAGES, applyCommands, layoutForApply, stageOf } from '../../lib/app/output-layout';

const NS = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'op-system' } };
const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'foos.samplecontroller.k8s.io' },
  spec: {
    group: 'samplecontroller.k8s.io',
    scope: 'Namespaced',
    names: { kind: 'Foo', plural: 'foos', singular: 'foo', listKind: 'FooList' },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};
const FOO = {
  apiVersion: 'samplecontroller.k8s.io/v1alpha1',
  kind: 'Foo',
  metadata: { name: 'example', namespace: 'op-system' },
  spec: {},
};
const CLUSTER_ROLE = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'r' },
  rules: [],
};
const SA = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'op', namespace: 'op-system' } };
const SERVICE_MONITOR = {
  apiVersion: 'monitoring.coreos.com/v1',
  kind: 'ServiceMonitor',
  metadata: { name: 'op', namespace: 'op-system' },
  spec: {},
};
const API_SERVICE = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.x' } };

describe('layoutForApply', () => {
  test('namespaces, then CRDs, then cluster objects, namespaced objects, custom resources, external custom resources', () => {
    // Given in the worst order: custom resource first, namespace last.
    const files = layoutForApply([SERVICE_MONITOR, FOO, SA, CLUSTER_ROLE, CRD, NS]);
    expect(files.map((f) => [f.stage.file, f.objects.map((o: any) => o.kind)])).toStrictEqual([
      ['0-namespaces.yaml', ['Namespace']],
      ['1-crds.yaml', ['CustomResourceDefinition']],
      ['2-cluster-resources.yaml', ['ClusterRole']],
      ['3-namespaced-resources.yaml', ['ServiceAccount']],
      ['4-custom-resources.yaml', ['Foo']],
      ['5-external-custom-resources.yaml', ['ServiceMonitor']],
    ]);
  });

  test('a kind of a *.k8s.io group is a custom resource when its CRD is in the output', () => {
    const crdKinds = new Set(['samplecontroller.k8s.io/Foo']);
    expect(stageOf(FOO, crdKinds)).toBe(APPLY_STAGES.customResources);
    // Without its CRD in the output, a *.k8s.io group looks built in (a known limitation): scoped by its namespace.
    expect(stageOf(FOO, new Set())).toBe(APPLY_STAGES.namespaced);
    expect(stageOf(SERVICE_MONITOR, new Set())).toBe(APPLY_STAGES.external);
    expect(stageOf(API_SERVICE, new Set())).toBe(APPLY_STAGES.cluster);
  });

  test('keeps the given order within a stage and leaves out empty stages', () => {
    const b = { ...SA, metadata: { name: 'b', namespace: 'x' } };
    const a = { ...SA, metadata: { name: 'a', namespace: 'x' } };
    const files = layoutForApply([b, a]);
    expect(files).toHaveLength(1);
    expect(files[0].objects.map((o: any) => o.metadata.name)).toStrictEqual(['b', 'a']);
  });

  test('apply commands: namespaces, CRDs with wait for Established, then the rest; external CRs left out', () => {
    expect(applyCommands(layoutForApply([NS, CRD, CLUSTER_ROLE, SA, FOO, SERVICE_MONITOR]))).toStrictEqual([
      'kubectl apply -f dist/0-namespaces.yaml',
      'kubectl apply --server-side -f dist/1-crds.yaml',
      'kubectl wait --for condition=established --timeout=60s -f dist/1-crds.yaml',
      'kubectl apply -f dist/2-cluster-resources.yaml -f dist/3-namespaced-resources.yaml -f dist/4-custom-resources.yaml',
    ]);
    expect(applyCommands(layoutForApply([SA]), 'out')).toStrictEqual([
      'kubectl apply -f out/3-namespaced-resources.yaml',
    ]);
  });
});

describe('OperatorApp with OutputLayout.APPLY_ORDER', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layout-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function synth() {
    const outdir = path.join(dir, 'dist');
    const app = new OperatorApp({ outdir, layout: OutputLayout.APPLY_ORDER });
    const examples = new Chart(app, 'examples');
    new ApiObject(examples, 'foo', FOO);
    const operator = new Chart(app, 'operator');
    for (const [i, m] of [SA, CLUSTER_ROLE, CRD, NS].entries()) new ApiObject(operator, `o${i}`, m);
    OutputFiles.of(operator).add('notes.md', () => 'hello\n');
    app.synth();
    return outdir;
  }

  test('writes numbered files across charts, APPLY.md with the commands, and extra files', () => {
    const outdir = synth();
    expect(fs.readdirSync(outdir).sort()).toStrictEqual([
      '0-namespaces.yaml',
      '1-crds.yaml',
      '2-cluster-resources.yaml',
      '3-namespaced-resources.yaml',
      '4-custom-resources.yaml',
      'APPLY.md',
      'notes.md',
    ]);
    const crs = YAML.parseAllDocuments(fs.readFileSync(path.join(outdir, '4-custom-resources.yaml'), 'utf8')).map((d) =>
      d.toJS(),
    );
    expect(crs).toStrictEqual([FOO]);
    const guide = fs.readFileSync(path.join(outdir, 'APPLY.md'), 'utf8');
    expect(guide).toContain(
      [
        'kubectl apply -f dist/0-namespaces.yaml',
        'kubectl apply --server-side -f dist/1-crds.yaml',
        'kubectl wait --for condition=established --timeout=60s -f dist/1-crds.yaml',
        'kubectl apply -f dist/2-cluster-resources.yaml -f dist/3-namespaced-resources.yaml -f dist/4-custom-resources.yaml',
      ].join('\n'),
    );
    expect(fs.readFileSync(path.join(outdir, 'notes.md'), 'utf8')).toBe('hello\n');
  });

  test('is deterministic: two synths give identical bytes', () => {
    const read = (d: string) =>
      Object.fromEntries(fs.readdirSync(d).map((f) => [f, fs.readFileSync(path.join(d, f), 'utf8')]));
    const first = read(synth());
    expect(read(synth())).toStrictEqual(first);
  });

  test('the default layout stays one file per chart', () => {
    const outdir = path.join(dir, 'dist');
    const app = new OperatorApp({ outdir });
    new ApiObject(new Chart(app, 'demo'), 'ns', NS);
    app.synth();
    expect(fs.readdirSync(outdir)).toStrictEqual(['demo.k8s.yaml']);
  });

  test('OutputFiles rejects YAML names (kubectl would apply them) and names claimed twice', () => {
    const app = new OperatorApp({ outdir: path.join(dir, 'dist') });
    const chart = new Chart(app, 'c');
    expect(() => OutputFiles.of(chart).add('report.yaml', () => '')).toThrow(
      /fileName: must be a plain file name that is not YAML.*got 'report.yaml'/,
    );
    OutputFiles.of(chart).add('a.md', () => '');
    OutputFiles.of(new Chart(app, 'd')).add('a.md', () => '');
    expect(() => app.synth()).toThrow(/output file 'a.md' is claimed by both \[c\] and \[d\]/);
    expect(fs.existsSync(path.join(dir, 'dist'))).toBe(false);
  });
});
