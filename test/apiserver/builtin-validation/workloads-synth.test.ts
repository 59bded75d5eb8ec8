import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import { OperatorApp } from '../../../lib';

/**
 * An app whose Deployment does not select its own pods and whose CronJob's schedule is in words: synth fails
 * naming each construct, field and value, as `kubectl apply` would have failed on the cluster.
 */
describe('synth of bad workloads', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workloads-synth-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const template = (labels: Record<string, string>, restartPolicy?: string) => ({
    metadata: { labels },
    spec: {
      ...(restartPolicy ? { restartPolicy } : {}),
      containers: [
        {
          name: 'app',
          image: 'nginx',
          // what the app's pod security checks ask for, so that only the workload's own fields are wrong
          securityContext: {
            allowPrivilegeEscalation: false,
            runAsNonRoot: true,
            seccompProfile: { type: 'RuntimeDefault' },
            capabilities: { drop: ['ALL'] },
          },
        },
      ],
    },
  });

  function app(good: boolean): OperatorApp {
    const a = new OperatorApp({ outdir: path.join(dir, 'dist') });
    const chart = new Chart(a, 'shop');
    new ApiObject(chart, 'web', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: good ? 'web' : 'api' } }, template: template({ app: 'web' }) },
    });
    new ApiObject(chart, 'report', {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'report' },
      spec: {
        schedule: good ? '@daily' : 'every day',
        jobTemplate: { spec: { template: template({ app: 'report' }, 'OnFailure') } },
      },
    });
    return a;
  }

  test('fails naming the constructs, the fields and the values', () => {
    let message = '';
    try {
      app(false).synth();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(
      /\[shop\/web\] .*spec\.template\.metadata\.labels: Invalid value: `selector` does not match template `labels` \(got \{"app":"web"\}\)/,
    );
    expect(message).toMatch(
      /\[shop\/report\] .*spec\.schedule: Invalid value: expected exactly 5 fields, found 2: \[every day\] \(got "every day"\)/,
    );
    expect(fs.existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  test('the same app, corrected, synthesizes', () => {
    app(true).synth();
    expect(fs.readdirSync(path.join(dir, 'dist'))).toEqual(['shop.k8s.yaml']);
  });
});
