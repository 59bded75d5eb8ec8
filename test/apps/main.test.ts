import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'yaml';

const ROOT = path.join(__dirname, '..', '..');

// What `npx cdk8s synth` runs (cdk8s.yaml), in a child process like the CLI does.
test('apps/main.ts writes the apply-ordered dist/ with the apply guide, RBAC reports and API docs', () => {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'main-')), 'dist');
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['apps/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, CDK8S_OUTDIR: out },
    stdio: 'pipe',
  });
  const kinds = (file: string) =>
    yaml.parseAllDocuments(fs.readFileSync(path.join(out, file), 'utf8')).map((d) => d.toJS().kind);
  expect(fs.readdirSync(out).sort()).toEqual([
    '0-namespaces.yaml',
    '1-crds.yaml',
    '2-cluster-resources.yaml',
    '3-namespaced-resources.yaml',
    '4-custom-resources.yaml',
    // the switchover policy needs 1.30 and the demo targets 1.28 to 1.37: in its own file, applied only where served
    '6-requires-1.30.yaml',
    // SampleDB's storage-defaults MutatingAdmissionPolicy needs 1.36: likewise (the webhook does it on older clusters)
    '7-requires-1.36.yaml',
    'APPLY.md',
    'docs',
    'foo-controller.rbac-report.md',
    'monitoring-operator.rbac-report.md',
    'sampledb-operator.rbac-report.md',
  ]);
  expect(fs.readdirSync(path.join(out, 'docs')).sort()).toEqual([
    'README.md',
    'alertmanagers.monitoring.coreos.com.md',
    'foo-controller.md',
    'foos.samplecontroller.k8s.io.md',
    'monitoring-operator.md',
    'prometheuses.monitoring.coreos.com.md',
    'prometheusrules.monitoring.coreos.com.md',
    'sampledb-operator.md',
    'sampledbs.database.example.com.md',
    'servicemonitors.monitoring.coreos.com.md',
  ]);
  // The monitoring stack installs prometheus-operator's CRDs: the operators' ServiceMonitors and PrometheusRules are
  // no longer external, they apply with the other custom resources once the CRDs are Established.
  expect(kinds('1-crds.yaml')).toHaveLength(6);
  expect(kinds('4-custom-resources.yaml').sort()).toEqual([
    'Alertmanager',
    'Foo',
    'Prometheus',
    'PrometheusRule',
    'PrometheusRule',
    'PrometheusRule',
    'SampleDB',
    'SampleDB',
    'ServiceMonitor',
    'ServiceMonitor',
    'ServiceMonitor',
  ]);
  expect(fs.readFileSync(path.join(out, 'APPLY.md'), 'utf8')).toContain('kubectl wait --for condition=established');
  expect(kinds('6-requires-1.30.yaml')).toEqual(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
  expect(fs.readFileSync(path.join(out, 'APPLY.md'), 'utf8')).toContain(
    'then kubectl apply -f dist/6-requires-1.30.yaml; fi',
  );
  expect(kinds('7-requires-1.36.yaml')).toEqual(['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding']);
  // docs/operators.md shows these commands as they are
  const commands = (markdown: string) => /^```sh\n([\s\S]*?)^```$/m.exec(markdown)![1];
  const guide = fs.readFileSync(path.join(ROOT, 'docs', 'operators.md'), 'utf8');
  expect(commands(guide.split('## Applying what synth wrote')[1])).toBe(
    commands(fs.readFileSync(path.join(out, 'APPLY.md'), 'utf8')),
  );
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
});

test("the README's commands are the ones users' CI pipelines run: `npm ci && npx cdk8s synth` (cdk8s.yaml runs apps/main.ts) and `npm test`", () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const commands = readme.split('## This repository')[1].split('```')[1];
  expect(commands).toMatch(/^npm ci && npx cdk8s synth /m);
  expect(commands).toMatch(/^npm test /m);
  expect(yaml.parse(fs.readFileSync(path.join(ROOT, 'cdk8s.yaml'), 'utf8')).app).toBe(
    'node tools/run-app/run-app.cjs apps/main.ts',
  );
  const tasks = JSON.parse(fs.readFileSync(path.join(ROOT, '.projen/tasks.json'), 'utf8')).tasks;
  expect(tasks['synth:apps'].steps).toEqual([{ exec: 'tsx apps/main.ts' }]);
});
