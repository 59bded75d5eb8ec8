import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import { OperatorApp } from '../../../lib';

/** An OperatorApp whose PriorityClass and Lease the apiserver refuses: synth fails first, and says where. */
describe('synth of PriorityClasses and Leases', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-synth-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const appWith = (value: number, leaseDurationSeconds: number) => {
    const app = new OperatorApp({ outdir: path.join(dir, 'dist') });
    const chart = new Chart(app, 'ops');
    new ApiObject(chart, 'pc', {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'operator-critical' },
      value,
    });
    new ApiObject(chart, 'lease', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'leader', namespace: 'ops' },
      spec: { holderIdentity: 'none', leaseDurationSeconds },
    });
    return app;
  };

  test('a PriorityClass of 2000000000 and a Lease of 0 seconds fail synth, naming construct, field and value', () => {
    let message = '';
    try {
      appWith(2000000000, 0).synth();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(
      '[ops/pc] scheduling.k8s.io/v1 PriorityClass operator-critical: value: Forbidden: maximum allowed value of a user defined priority is 1000000000 (got 2000000000)',
    );
    expect(message).toContain(
      '[ops/lease] coordination.k8s.io/v1 Lease leader: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    );
    expect(fs.existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  test('the same app with 1000000 and 15 seconds synthesizes', () => {
    appWith(1000000, 15).synth();
    expect(fs.readdirSync(path.join(dir, 'dist'))).toEqual(['ops.k8s.yaml']);
  });
});
