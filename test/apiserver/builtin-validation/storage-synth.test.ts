import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import { OperatorApp } from '../../../lib';

/** An OperatorApp whose PersistentVolumeClaim and LimitRange the apiserver refuses: synth fails first, and says where. */
describe('synth of built-in PersistentVolumeClaims and LimitRanges', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-synth-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const appWith = (accessMode: string, min: string) => {
    const app = new OperatorApp({ outdir: path.join(dir, 'dist') });
    const chart = new Chart(app, 'data');
    new ApiObject(chart, 'claim', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'db' },
      spec: { accessModes: [accessMode], resources: { requests: { storage: '10Gi' } } },
    });
    new ApiObject(chart, 'limits', {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'limits' },
      spec: { limits: [{ type: 'Pod', min: { cpu: min }, max: { cpu: '2' } }] },
    });
    return app;
  };

  test('accessModes [Bogus] and a LimitRange min above max fail synth, naming construct, field and value', () => {
    let message = '';
    try {
      appWith('Bogus', '3').synth();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(
      '[data/claim] v1 PersistentVolumeClaim db: spec.accessModes: Unsupported value: "Bogus": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    );
    expect(message).toMatch(
      /\[data\/limits\] v1 LimitRange limits: .*spec\.limits\[0\]\.min\[cpu\]: Invalid value: .*min value 3 is greater than max value 2/,
    );
    expect(fs.existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  test('the same app with ReadWriteOnce and min 1 synthesizes', () => {
    appWith('ReadWriteOnce', '1').synth();
    expect(fs.readdirSync(path.join(dir, 'dist'))).toEqual(['data.k8s.yaml']);
  });
});
