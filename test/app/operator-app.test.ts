import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { OperatorApp, Warnings } from '../../lib';

class Failing extends Construct {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.node.addValidation({ validate: () => ['spec.replicas: must be >= 1, got 0'] });
  }
}

describe('OperatorApp', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opapp-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('writes manifests into the output folder', () => {
    const outdir = path.join(dir, 'dist');
    const app = new OperatorApp({ outdir });
    const chart = new Chart(app, 'demo');
    new ApiObject(chart, 'cm', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    app.synth();
    expect(fs.readdirSync(outdir)).toEqual(['demo.k8s.yaml']);
    expect(fs.readdirSync(dir)).toEqual(['dist']);
  });

  test('fails atomically: no partial output, the previous output untouched', () => {
    const outdir = path.join(dir, 'dist');
    fs.mkdirSync(outdir);
    fs.writeFileSync(path.join(outdir, 'old.yaml'), 'old');
    const app = new OperatorApp({ outdir });
    const chart = new Chart(app, 'demo');
    new Failing(chart, 'bad');
    expect(() => app.synth()).toThrow(/\[demo\/bad\] spec.replicas: must be >= 1, got 0/);
    expect(fs.readdirSync(dir)).toEqual(['dist']);
    expect(fs.readdirSync(outdir)).toEqual(['old.yaml']);
  });

  test('collects warnings with construct paths, once each', () => {
    const app = new OperatorApp({ outdir: path.join(dir, 'dist') });
    const chart = new Chart(app, 'demo');
    Warnings.of(chart).add('too big');
    Warnings.of(chart).add('too big');
    expect(Warnings.collect(app)).toEqual(['[demo] too big']);
  });
});
