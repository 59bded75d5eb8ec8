import { spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart, Testing } from 'cdk8s';
import { CustomResource, CustomResourceDefinition, OperatorApp, Schema, Warnings } from '../../lib';

const ROOT = path.join(__dirname, '..', '..');

/** An app with two mistakes in its example, run as a program (tsx), as `cdk8s synth` or `npm run synth` runs it. */
const APP = `
import { Chart } from 'cdk8s';
import { CustomResource, CustomResourceDefinition, OperatorApp, Schema } from '${path.join(ROOT, 'lib')}';
const app = new OperatorApp({ outdir: process.argv[2] ?? process.env.CDK8S_OUTDIR });
const chart = new Chart(app, 'tenants');
const crd = new CustomResourceDefinition(chart, 'Tenant', { group: 'x.example.com', kind: 'Tenant', versions: [{ name: 'v1', spec: Schema.object({ description: 'A tenant.', properties: {
  owners: Schema.array(Schema.string({ description: 'An owner.' }), { description: 'Owners.' }),
} }) }] });
new CustomResource(chart, 'example', { crd, metadata: { name: 'example', namespace: 'default' }, spec: { owners: process.env.GOOD ? ['alice'] : 'alice' } });
app.synth();
`;

describe('a failed synth run as a program', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(ROOT, '.synth-fail-'));
    fs.writeFileSync(path.join(dir, 'app.ts'), APP);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = (env: Record<string, string> = {}) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, 'app.ts'), path.join(dir, 'dist')], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '', ...env },
    });

  test('prints the report only and exits 1: no source line, no caret, no Node.js footer, no stack', () => {
    const r = run();
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      [
        'synth found 1 problem (nothing was written):',
        '  [tenants/example] spec.owners: Invalid value: "string": spec.owners in body must be of type array: "string" (got "alice")',
        '',
      ].join('\n'),
    );
    expect(fs.existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  test('CDK8S_OPERATOR_STACK=1 shows it as Node shows any uncaught error, with the stack', () => {
    const r = run({ CDK8S_OPERATOR_STACK: '1' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('synth found 1 problem');
    expect(r.stderr).toMatch(/^\s+at .*synth-failure/m);
    expect(r.stderr).toContain('Node.js v');
  });
});

describe('a failed `cdk8s synth` (the cdk8s CLI empties its output folder before the app runs)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(ROOT, '.synth-fail-cli-'));
    fs.writeFileSync(path.join(dir, 'app.ts'), APP);
    fs.writeFileSync(
      path.join(dir, 'cdk8s.yaml'),
      'language: typescript\napp: node --import tsx app.ts\noutput: dist\n',
    );
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    // the copy the app keeps (lib/app/last-good-output.ts: no node_modules in the project folder, so the temp folder)
    const key = createHash('sha256').update(path.join(dir, 'dist')).digest('hex').slice(0, 16);
    fs.rmSync(path.join(os.tmpdir(), 'cdk8s-operator', 'last-good', key), { recursive: true, force: true });
  });
  const cdk8sSynth = (env: Record<string, string> = {}) =>
    spawnSync(path.join(ROOT, 'node_modules', '.bin', 'cdk8s'), ['synth'], {
      cwd: dir,
      encoding: 'utf8',
      // no network here: the CLI's own upgrade check would print a stack trace of its failed request
      env: { ...process.env, NODE_OPTIONS: '', CDK8S_CHECK_UPGRADE: 'false', ...env },
    });

  test('leaves the last good dist/ in place, and the report says so', () => {
    const good = cdk8sSynth({ GOOD: '1' });
    expect(good.status).toBe(0);
    const written = fs.readdirSync(path.join(dir, 'dist')).sort();
    const bytes = written.map((f) => fs.readFileSync(path.join(dir, 'dist', f), 'utf8'));
    expect(bytes.join('')).toContain('- alice');

    const bad = cdk8sSynth();
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('synth found 1 problem (nothing was written; dist keeps the last good output):');
    expect(fs.readdirSync(path.join(dir, 'dist')).sort()).toEqual(written);
    expect(written.map((f) => fs.readFileSync(path.join(dir, 'dist', f), 'utf8'))).toEqual(bytes);
    expect(fs.readdirSync(dir).filter((f) => /staging|restoring/.test(f))).toEqual([]);
  });
});

describe('each problem once', () => {
  test('a value a pattern refuses is not reported again as no quantity (format: quantity)', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c');
    const crd = new CustomResourceDefinition(chart, 'Tenant', {
      group: 'x.example.com',
      kind: 'Tenant',
      versions: [
        {
          name: 'v1',
          spec: Schema.object({
            description: 'A tenant.',
            properties: {
              cpu: Schema.string({ description: 'CPU.', format: 'quantity', pattern: '^[0-9]+m?$' }),
              memory: Schema.string({ description: 'Memory.', format: 'quantity' }),
            },
          }),
        },
      ],
    });
    new CustomResource(chart, 'example', {
      crd,
      metadata: { name: 'example', namespace: 'default' },
      spec: { cpu: '7q', memory: '1zz' },
    });
    let message = '';
    try {
      app.synthYaml();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message.split('\n').filter((l) => l.includes('] spec.cpu:'))).toHaveLength(1);
    expect(message).toContain('spec.cpu: Invalid value: "7q": spec.cpu in body should match \'^[0-9]+m?$\'');
    expect(message).toContain('spec.memory: Invalid value: must be a Kubernetes quantity');
  });
});

describe('printer columns', () => {
  test('a column whose JSONPath selects several values ([*]) is a warning: kubectl shows only the first; acknowledgeable', () => {
    const columns = (acknowledged: boolean) => {
      const app = new OperatorApp({
        outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'cols-')),
        report: false,
      });
      const chart = new Chart(app, 'c');
      new CustomResourceDefinition(chart, 'Tenant', {
        group: 'x.example.com',
        kind: 'Tenant',
        ...(acknowledged
          ? {
              acknowledgedWarnings: [
                { path: 'spec.versions[0].additionalPrinterColumns[0].jsonPath', reason: 'the first owner is enough' },
              ],
            }
          : {}),
        versions: [
          {
            name: 'v1',
            spec: Schema.object({
              description: 'A tenant.',
              properties: {
                owners: Schema.array(Schema.string({ description: 'An owner.' }), { description: 'Owners.' }),
              },
            }),
            printerColumns: [
              { name: 'Owners', type: 'string', jsonPath: '.spec.owners[*]' },
              { name: 'First', type: 'string', jsonPath: '.spec.owners[0]' },
            ],
          },
        ],
      });
      app.synth();
      const warnings = Warnings.collect(app).filter((w) => /printer|column/i.test(w));
      fs.rmSync(app.outdir, { recursive: true, force: true });
      return warnings;
    };
    const found = columns(false);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('spec.versions[0].additionalPrinterColumns[0].jsonPath');
    expect(found[0]).toContain('column "Owners" selects several values, and kubectl get shows only the first');
    expect(columns(true)).toStrictEqual([]);
  });
});

describe('a rule on an object', () => {
  test('names the object by its path, not by a whole-object `(got {…})`; a rule on a scalar still shows the value', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c');
    const crd = new CustomResourceDefinition(chart, 'Tenant', {
      group: 'x.example.com',
      kind: 'Tenant',
      versions: [
        {
          name: 'v1',
          spec: Schema.object({
            description: 'A tenant.',
            properties: {
              minPods: Schema.integer({ description: 'Min.' }),
              maxPods: Schema.integer({ description: 'Max.' }),
              prefix: Schema.string({
                description: 'Prefix.',
                validations: [{ rule: 'self.startsWith("t-")', message: 'must start with t-' }],
              }),
            },
            validations: [{ rule: 'self.minPods <= self.maxPods', message: 'minPods must not exceed maxPods' }],
          }),
        },
      ],
    });
    new CustomResource(chart, 'example', {
      crd,
      metadata: { name: 'example', namespace: 'default' },
      spec: { minPods: 5, maxPods: 1, prefix: 'x-' },
    });
    let message = '';
    try {
      app.synthYaml();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^\s*\[c\/example\] spec: Invalid value: "object": minPods must not exceed maxPods$/m);
    expect(message).not.toContain('(got {');
    expect(message).toMatch(/spec\.prefix: Invalid value: "string": must start with t-( \(got "x-"\))?/);
  });
});

describe('app-wide problems', () => {
  test('a problem of a built-in object is shown under its construct, not under the app', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-fail-'));
    try {
      const app = new OperatorApp({ outdir: path.join(outdir, 'dist'), report: false });
      new ApiObject(new Chart(app, 'web'), 'svc', {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: { ports: [{ port: 80, targetPort: 70000 }] },
      });
      expect(() => app.synth()).toThrow(
        'synth found 1 problem (nothing was written):\n' +
          '  [web/svc] v1 Service web: spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      );
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });
});
