import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart, Testing } from 'cdk8s';
import {
  CrdBaselines,
  CustomResourceDefinition,
  Operator,
  OperatorApp,
  OperatorAppProps,
  OutputLayout,
  renderSynthReport,
  Schema,
  Warnings,
} from '../../lib';
import { reportEnabled } from '../../lib/report/synth-report';

const described = (d: string) => ({ description: d });

function widgetCrd(scope: Chart, maximum = 5) {
  return new CustomResourceDefinition(scope, 'Widget', {
    group: 'toys.example.com',
    kind: 'Widget',
    versions: [
      {
        name: 'v1',
        spec: Schema.object({
          ...described('Spec.'),
          properties: { count: Schema.integer({ ...described('Count.'), maximum }) },
        }),
      },
    ],
  });
}

// The test task sets CDK8S_OPERATOR_QUIET for every other suite; these tests are about the default.
const quietBefore = process.env.CDK8S_OPERATOR_QUIET;
beforeAll(() => {
  delete process.env.CDK8S_OPERATOR_QUIET;
});
afterAll(() => {
  if (quietBefore !== undefined) process.env.CDK8S_OPERATOR_QUIET = quietBefore;
});

/** Synthesizes a small app and returns what it printed to stderr. */
function synthPrinting(
  outdir: string,
  props: OperatorAppProps = {},
  setup: (app: OperatorApp, chart: Chart) => void = () => {},
): string {
  const app = new OperatorApp({ outdir, ...props });
  const chart = new Chart(app, 'toys');
  widgetCrd(chart);
  new ApiObject(chart, 'cm', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  new ApiObject(chart, 'cm2', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } });
  setup(app, chart);
  let printed = '';
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: any) => {
    printed += String(chunk);
    return true;
  });
  try {
    app.synth();
  } finally {
    spy.mockRestore();
  }
  return printed;
}

describe('synth report', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('OperatorApp prints files, objects by kind, CRD sizes against both budgets and every warning', () => {
    const printed = synthPrinting(path.join(dir, 'dist'), {}, (_app, chart) => Warnings.of(chart).add('check me'));
    const crdBytes = fs.statSync(path.join(dir, 'dist', 'toys.k8s.yaml')).size;
    expect(printed).toContain(`Synth report: ${path.join(dir, 'dist')}/`);
    const shown = crdBytes < 1024 ? `${crdBytes} B` : `${(crdBytes / 1024).toFixed(1)} KiB`;
    expect(printed).toContain(`Files (1, 3 objects):\n  toys.k8s.yaml  ${shown.padStart(9)}  3 objects\n`);
    expect(printed).toContain(
      '  apiextensions.k8s.io/v1 CustomResourceDefinition  1\n  v1 ConfigMap                                      2\n',
    );
    expect(printed).toMatch(
      / {2}widgets\.toys\.example\.com {2}\d+ bytes, 0\.\d% of the annotation budget, 0\.\d% of 1\.5 MiB — ok/,
    );
    expect(printed).toContain(
      'CRD sizes (client-side apply annotation budget 262144 bytes; etcd limit 1572864 bytes = 1.5 MiB)',
    );
    expect(printed).toContain('Warnings (1):\n  warning: [toys] check me\n');
  });

  test("the Helm layout: Chart.yaml and values.yaml are no objects (no 'undefined undefined 1', no 'v2 undefined')", () => {
    const printed = synthPrinting(path.join(dir, 'chart'), { layout: OutputLayout.HELM }, (_app, chart) => {
      new Operator(chart, 'toy-operator', {
        crds: [],
        image: 'ghcr.io/acme/toy-operator:1.0.0',
        contract: { watches: [{ apiVersion: 'v1', kind: 'ConfigMap' }] },
      });
    });
    expect(printed).not.toMatch(/undefined/);
    expect(printed).toMatch(/^ {2}Chart\.yaml +\d+ B$/m);
    expect(printed).toMatch(/^ {2}values\.yaml +\d+ B$/m);
    expect(printed).toContain('  v1 ConfigMap ');
  });

  test('prints the API evolution, acknowledged breaking changes with their reason', () => {
    const baselines = path.join(dir, 'baselines');
    new CrdBaselines(baselines).write([widgetCrd(Testing.chart(), 9)]);
    const printed = synthPrinting(path.join(dir, 'dist'), {
      evolution: {
        baselineDir: baselines,
        acknowledge: [
          { change: 'validation-tightened v1:.spec.count', reason: 'the controller never accepted more than 5' },
        ],
      },
    });
    expect(printed).toContain(
      'API evolution (against the committed baselines):\n' +
        '  widgets.toys.example.com: 1 change, 1 breaking (acknowledged)\n' +
        '    BREAKING validation-tightened v1:.spec.count: maximum 9 → 5 — acknowledged: the controller never accepted more than 5\n',
    );
  });

  test('quiet: report: false or CDK8S_OPERATOR_QUIET=1 print only the warnings', () => {
    expect(synthPrinting(path.join(dir, 'a'), { report: false }, (_a, chart) => Warnings.of(chart).add('w'))).toBe(
      'warning: [toys] w\n',
    );
    const before = process.env.CDK8S_OPERATOR_QUIET;
    process.env.CDK8S_OPERATOR_QUIET = '1';
    try {
      expect(synthPrinting(path.join(dir, 'b'))).toBe('');
    } finally {
      if (before === undefined) delete process.env.CDK8S_OPERATOR_QUIET;
      else process.env.CDK8S_OPERATOR_QUIET = before;
    }
  });

  test('reportEnabled: the option wins over the environment', () => {
    expect(reportEnabled(undefined, {})).toBe(true);
    expect(reportEnabled(undefined, { CDK8S_OPERATOR_QUIET: 'true' })).toBe(false);
    expect(reportEnabled(true, { CDK8S_OPERATOR_QUIET: '1' })).toBe(true);
    expect(reportEnabled(undefined, { CDK8S_OPERATOR_QUIET: '0' })).toBe(true);
  });

  test('flags a CRD over the client-side apply budget and one too big for etcd', () => {
    const text = renderSynthReport({
      outdir: 'dist',
      files: [],
      kinds: {},
      evolution: [],
      warnings: [],
      crds: [
        { name: 'big.example.com', bytes: 300000, annotationBytes: 300100 },
        { name: 'huge.example.com', bytes: 1600000, annotationBytes: 1600100 },
      ],
    });
    expect(text).toContain(
      'big.example.com   300000 bytes, 114% of the annotation budget, 19% of 1.5 MiB — too big for client-side apply: use kubectl apply --server-side',
    );
    expect(text).toContain(
      'huge.example.com  1600000 bytes, 610% of the annotation budget, 102% of 1.5 MiB — TOO BIG for etcd',
    );
    expect(text).toContain('Warnings: none');
  });
});
