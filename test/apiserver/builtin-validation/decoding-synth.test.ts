import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import { OperatorApp } from '../../../lib';

/** Synth of an OperatorApp with a built-in object the apiserver would refuse before validating it. */
function synth(objects: Record<string, any>, min?: string): string {
  const app = new OperatorApp({
    outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'decoding-')),
    report: false,
    policy: false,
    ...(min ? { kubernetesVersions: { min } } : {}),
  });
  const chart = new Chart(app, 'chart');
  for (const [id, object] of Object.entries(objects)) new ApiObject(chart, id, object);
  try {
    app.synth();
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}

const SERVICE = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web' },
  spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
};

describe('synth refuses what the apiserver cannot decode', () => {
  test("a policy/v1beta1 PodDisruptionBudget (removed in 1.25): the construct, kubectl's words, the replacement", () => {
    const error = synth({
      pdb: {
        apiVersion: 'policy/v1beta1',
        kind: 'PodDisruptionBudget',
        metadata: { name: 'web' },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
      },
    });
    expect(error).toContain(
      '[chart/pdb] policy/v1beta1 PodDisruptionBudget is served by no Kubernetes version of the range: no matches for kind "PodDisruptionBudget" in version "policy/v1beta1": removed in Kubernetes 1.25, use policy/v1',
    );
  });

  test('a Deployment in v1: where Deployments are served', () => {
    const error = synth({ d: { apiVersion: 'v1', kind: 'Deployment', metadata: { name: 'd' } } });
    expect(error).toContain(
      '[chart/d] v1 Deployment is served by no Kubernetes version of the range: no matches for kind "Deployment" in version "v1": Deployment is served as apps/v1',
    );
  });

  test('a Service port "abc": the construct, the field and the value, in the server\'s words, once', () => {
    const error = synth({ svc: { ...SERVICE, spec: { ...SERVICE.spec, ports: [{ port: 'abc' }] } } });
    const line =
      '[chart/svc] v1 Service web: spec.ports[0].port: json: cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type int32 (got "abc")';
    expect(error).toContain(line);
    expect(error.split(line).length - 1).toBe(1); // one line for every version of the range
  });

  test('an unknown field: one line naming the field, whatever the versions', () => {
    const error = synth({ svc: { ...SERVICE, spec: { ...SERVICE.spec, clusterIp: 'None' } } });
    expect(error).toContain(
      '[chart/svc] v1 Service web: spec.clusterIp: strict decoding error: unknown field "spec.clusterIp"',
    );
    expect(error.match(/spec\.clusterIp/g)?.length).toBe(2); // the path and the server's message, on one line
  });

  test('a field newer than 1.32 fails on the versions that lack it, and passes on a range that has it', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [{ name: 'web', image: 'registry.example.com/web:1', lifecycle: { stopSignal: 'SIGTERM' } }],
          },
        },
      },
    };
    expect(synth({ d: deployment })).toContain(
      '[chart/d] apps/v1 Deployment web: on Kubernetes 1.28, 1.29, 1.30, 1.31, 1.32: spec.template.spec.containers[0].lifecycle.stopSignal: strict decoding error: unknown field "spec.template.spec.containers[0].lifecycle.stopSignal" (a field this version does not have: Kubernetes 1.36 has it, added after 1.32)',
    );
    expect(synth({ d: deployment }, '1.36')).not.toContain('stopSignal: strict decoding error');
  });

  test('a valid Service passes', () => {
    expect(synth({ svc: SERVICE })).toBe('');
  });
});
