import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import { OperatorApp } from '../../../lib';

/** An OperatorApp whose Service and PodDisruptionBudget the apiserver refuses: synth fails first, and says where. */
describe('synth of built-in Services and PodDisruptionBudgets', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'services-synth-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const appWith = (port: number, pdb: object) => {
    const app = new OperatorApp({ outdir: path.join(dir, 'dist') });
    const chart = new Chart(app, 'web');
    new ApiObject(chart, 'svc', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { selector: { app: 'web' }, ports: [{ port }] },
    });
    new ApiObject(chart, 'pdb', {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, ...pdb },
    });
    return app;
  };

  test('a port of 70000 and a PDB with both minAvailable and maxUnavailable fail synth, naming construct, field and value', () => {
    const app = appWith(70000, { minAvailable: 1, maxUnavailable: '50%' });
    let message = '';
    try {
      app.synth();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(
      '[web/svc] v1 Service web: spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
    );
    // the port is also the defaulted targetPort, as the apiserver says
    expect(message).toContain('[web/svc] v1 Service web: spec.ports[0].targetPort: Invalid value: 70000');
    expect(message).toMatch(
      /\[web\/pdb\] policy\/v1 PodDisruptionBudget web: spec: Invalid value: \{"MinAvailable":1,.*"MaxUnavailable":"50%",.*\}: minAvailable and maxUnavailable cannot be both set/,
    );
    expect(fs.existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  test('the same app with port 8080 and only minAvailable synthesizes', () => {
    appWith(8080, { minAvailable: 1 }).synth();
    expect(fs.readdirSync(path.join(dir, 'dist'))).toEqual(['web.k8s.yaml']);
  });
});
