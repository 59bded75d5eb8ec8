import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import { CustomResource, CustomResourceDefinition, Operator, OperatorApp, Schema } from '../../lib';

const spec = Schema.object({
  description: 'Spec.',
  properties: { size: Schema.integer({ description: 'Size.', minimum: 1 }) },
});

/** Synthesizes `build`'s app into a folder that holds a previous good output; returns the error it threw. */
function failedSynth(dir: string, build: (app: OperatorApp, chart: Chart) => void): Error {
  const outdir = path.join(dir, 'dist');
  fs.mkdirSync(outdir);
  fs.writeFileSync(path.join(outdir, 'last-good.yaml'), 'kept');
  const app = new OperatorApp({ outdir, report: false, descriptionCheck: false });
  build(app, new Chart(app, 'demo'));
  try {
    app.synth();
  } catch (e) {
    expect(fs.readdirSync(outdir)).toEqual(['last-good.yaml']);
    return e as Error;
  }
  throw new Error('synth passed');
}

describe('one synth reports every problem', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'one-report-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('construct-time mistakes, validation errors and the policy, each once, under the construct they concern, no stack trace', () => {
    const error = failedSynth(dir, (_app, chart) => {
      // two storage versions: reported on the CRD, not on the operator's RBAC that reads the storage version
      const crd = new CustomResourceDefinition(chart, 'Db', {
        group: 'db.example.com',
        kind: 'Db',
        versions: [
          { name: 'v1', storage: true, spec },
          { name: 'v2', storage: true, spec },
        ],
      });
      new Operator(chart, 'db-operator', {
        crds: [crd],
        image: 'ghcr.io/acme/db:latest',
        replicas: 2,
        contract: { watches: [crd], owns: [{ apiVersion: 'apps/v1', kind: 'StatefulSet' }] },
      });
      new CustomResource(chart, 'no-kind', {
        apiVersion: 'db.example.com/v1',
        metadata: { name: 'x', namespace: 'default' },
      } as any);
      new CustomResource(chart, 'small', { crd, metadata: { name: 'small', namespace: 'default' }, spec: { size: 0 } });
      new ApiObject(chart, 'pod', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: { hostPID: true, containers: [] },
      });
    });
    const lines = error.message.split('\n');
    expect(lines[0]).toMatch(/^synth found \d+ problems \(nothing was written; .*dist keeps the last good output\):$/);
    const problems = lines.slice(1).map((l) => l.trim());
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^\[demo\/Db\] spec\.versions: Invalid value: must have exactly one version marked as storage version/,
        ),
        expect.stringMatching(/^\[demo\/db-operator\/Controller\] image: /),
        expect.stringMatching(/^\[demo\/db-operator\/Controller\] replicas: 2 replicas need leader election/),
        expect.stringMatching(/^\[demo\/no-kind\] 'apiVersion' and 'kind' are required when 'crd' is not given/),
        '[demo/small] spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1', // the value once
        expect.stringMatching(/^\[demo\/pod\] policy: Pod p: spec\.hostPID: host namespaces are forbidden/),
      ]),
    );
    expect(new Set(problems).size).toBe(problems.length);
    expect(problems.filter((p) => /storage version/.test(p))).toHaveLength(1);
    expect(problems.filter((p) => /Rbac/.test(p))).toEqual([]);
    expect(error.stack).toBe(`${error.name}: ${error.message}`);
    expect(error.message).not.toMatch(/^\s+at /m);
  });

  test('versions built from the same schema report each problem once, naming every version that has it', () => {
    const error = failedSynth(dir, (_app, chart) => {
      const broken = { ...spec, 'x-kubernetes-validations': [{ rule: 'self.sise > 0' }] };
      new CustomResourceDefinition(chart, 'Db', {
        group: 'db.example.com',
        kind: 'Db',
        versions: [
          { name: 'v1alpha1', spec: broken },
          { name: 'v1beta1', spec: broken },
          { name: 'v1', storage: true, spec: broken },
        ],
      });
    });
    const problems = error.message
      .split('\n')
      .slice(1)
      .map((l) => l.trim());
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^\[demo\/Db\] spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: compilation failed: .*undefined field 'sise'.* \(the same in versions v1alpha1, v1beta1, v1\)$/,
    );
  });

  test('Schema builder mistakes are reported at synth with the others, at their fields, instead of thrown one at a time', () => {
    const error = failedSynth(dir, (_app, chart) => {
      new CustomResourceDefinition(chart, 'Db', {
        group: 'db.example.com',
        kind: 'Db',
        versions: [
          {
            name: 'v1',
            spec: Schema.object({
              properties: {
                name: Schema.string({ pattern: '([a-z' }),
                size: Schema.integer({ minimum: 3, maximum: 1 }),
              },
              required: ['nmae'],
            }),
          },
        ],
      });
      new CustomResource(chart, 'no-kind', {
        apiVersion: 'db.example.com/v1',
        metadata: { name: 'x', namespace: 'default' },
      } as any);
    });
    const problems = error.message
      .split('\n')
      .slice(1)
      .map((l) => l.trim());
    const at = '[demo/Db] spec.versions[0].schema.openAPIV3Schema.properties[spec]';
    expect(problems).toEqual(
      expect.arrayContaining([
        `${at}: 'required' names a field that 'properties' does not declare, got "nmae"`,
        expect.stringMatching(
          new RegExp(
            `^${esc(at)}\\.properties\\[name\\]: 'pattern' must be a valid RE2 regular expression, got "\\(\\[a-z": `,
          ),
        ),
        `${at}.properties[size]: 'minimum' must not exceed 'maximum', got minimum=3 > maximum=1`,
        expect.stringMatching(/^\[demo\/no-kind\] /),
      ]),
    );
    expect(problems.filter((p) => /pattern|regular expression/.test(p))).toHaveLength(1);
  });
});

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
