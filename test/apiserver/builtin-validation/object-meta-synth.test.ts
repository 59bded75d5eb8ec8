import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import { OperatorApp } from '../../../lib';

/**
 * Synth refuses the built-in objects the apiserver would refuse, once, with every problem: each names the construct
 * path, the field and the value.
 */
test('an OperatorApp with a bad ConfigMap and a bad Role fails synth with all four problems', () => {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'builtin-meta-synth-'));
  try {
    const app = new OperatorApp({ outdir });
    const chart = new Chart(app, 'chart');
    new ApiObject(chart, 'cm', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'Bad_Name', labels: { 'a/b/c': 'x' } },
      data: { 'bad key!': 'x' },
    } as any);
    new ApiObject(chart, 'role', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: [] }],
    } as any);
    let message = '';
    try {
      app.synth();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('[chart/cm]');
    expect(message).toMatch(
      /\[chart\/cm\][^\n]*metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    );
    expect(message).toMatch(/\[chart\/cm\][^\n]*metadata\.labels: Invalid value: "a\/b\/c": /);
    expect(message).toMatch(/\[chart\/cm\][^\n]*data\[bad key!\]: Invalid value: "bad key!": a valid config key/);
    expect(message).toMatch(
      /\[chart\/role\][^\n]*rules\[0\]\.verbs: Required value: verbs must contain at least one value/,
    );
    expect(fs.readdirSync(outdir)).toStrictEqual([]);
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
});
