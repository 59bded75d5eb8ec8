import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import { OperatorApp } from '../../../lib';

// Until the workloads validators are assembled beside it (index.ts), a Deployment's template is checked here through
// podTemplateIssues, as the Deployment validator calls it; the real one, once there, takes precedence.
jest.mock('../../../lib/apiserver/builtin-validation/workloads', () => {
  const actual = jest.requireActual('../../../lib/apiserver/builtin-validation/workloads');
  const { podTemplateIssues } = jest.requireActual('../../../lib/apiserver/builtin-validation/pod-spec');
  return {
    WORKLOAD_VALIDATORS: {
      'apps/v1/Deployment': (o: any, v: any) =>
        podTemplateIssues(o.spec?.template, 'spec.template', v, { restartPolicies: ['Always'] }),
      ...actual.WORKLOAD_VALIDATORS,
    },
  };
});

describe('an OperatorApp with a bad Deployment template', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'podspec-synth-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const deployment = (container: object) => {
    const app = new OperatorApp({ outdir: path.join(dir, 'dist') });
    const chart = new Chart(app, 'shop');
    new ApiObject(chart, 'web', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container] } },
      },
    });
    return app;
  };

  test('fails synth naming the construct, both fields and both values', () => {
    const app = deployment({ name: 'UPPER', image: 'nginx:1.27', ports: [{ containerPort: 99999 }] });
    let message = '';
    try {
      app.synth();
    } catch (e) {
      message = String((e as Error).message);
    }
    expect(message).toMatch(
      /\[shop\/web\] apps\/v1 Deployment web: spec\.template\.spec\.containers\[0\]\.name: Invalid value: a lowercase RFC 1123 label must .*\(got "UPPER"\)/,
    );
    expect(message).toMatch(
      /\[shop\/web\] apps\/v1 Deployment web: spec\.template\.spec\.containers\[0\]\.ports\[0\]\.containerPort: Invalid value: must be between 1 and 65535, inclusive \(got 99999\)/,
    );
    expect(fs.existsSync(path.join(dir, 'dist'))).toBe(false);
  });

  test('the same Deployment with a good name and port (and the restricted security context) synthesizes', () => {
    const securityContext = {
      allowPrivilegeEscalation: false,
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
      capabilities: { drop: ['ALL'] },
    };
    deployment({ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 8080 }], securityContext }).synth();
    expect(fs.readdirSync(path.join(dir, 'dist'))).toEqual(['shop.k8s.yaml']);
  });
});
