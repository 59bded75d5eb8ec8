import { execFile, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import * as YAML from 'yaml';
import { CustomResourceDefinition, Operator, OperatorApp, OutputLayout } from '../../lib';
import { FakeApiServer, startFakeApiServer } from '../fake-apiserver';

// Runs the exact commands APPLY.md documents, with a real kubectl, against the fake apiserver
// (test/fake-apiserver: discovery, CRDs with Established, apply). Real authorization and Pod
// Security admission need a real kube-apiserver: see envtest-rbac.test.ts.
const FIXTURES = path.join(__dirname, '../../../shared/fixtures/sample-controller'); // beside the repository
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
const maybe = hasKubectl && fs.existsSync(FIXTURES) ? describe : describe.skip;

function synthOperatorApp(root: string): string {
  const app = new OperatorApp({ outdir: path.join(root, 'dist'), layout: OutputLayout.APPLY_ORDER });
  const chart = new Chart(app, 'foo');
  const crd = CustomResourceDefinition.fromFile(chart, 'crd', path.join(FIXTURES, 'crd.yaml'));
  new Operator(chart, 'foo-operator', {
    crds: [crd],
    image: 'ghcr.io/acme/foo:0.1.0',
    replicas: 2,
    contract: { watches: [crd], owns: [{ apiVersion: 'apps/v1', kind: 'Deployment' }], status: true, finalizers: true, events: true, leaderElection: true },
  });
  const example = YAML.parse(fs.readFileSync(path.join(FIXTURES, 'example-foo.yaml'), 'utf8'));
  new ApiObject(new Chart(app, 'examples', { namespace: 'foo-operator-system' }), 'example', example);
  app.synth();
  return path.join(root, 'dist');
}

/** The shell lines of the first ```sh block of APPLY.md. */
function documentedCommands(dist: string): string[] {
  const guide = fs.readFileSync(path.join(dist, 'APPLY.md'), 'utf8');
  const block = /```sh\n([\s\S]*?)```/.exec(guide);
  if (!block) throw new Error('APPLY.md has no sh block');
  return block[1].trim().split('\n');
}

/** Runs one command line asynchronously: the fake apiserver shares this event loop. */
function kubectl(line: string, cwd: string, kubeconfig: string): Promise<{ status: number; stderr: string }> {
  const args = line.split(' ');
  expect(args[0]).toBe('kubectl');
  return new Promise(resolve => {
    execFile('kubectl', args.slice(1), { cwd, encoding: 'utf8', env: { ...process.env, KUBECONFIG: kubeconfig }, timeout: 90_000 },
      (err, _stdout, stderr) => resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr }));
  });
}

maybe('the documented apply commands (kubectl against the fake apiserver)', () => {
  let root: string;
  let server: FakeApiServer;
  let kubeconfig: string;
  beforeEach(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'apply-'));
    server = await startFakeApiServer();
    kubeconfig = path.join(root, 'kubeconfig');
    server.writeKubeconfig(kubeconfig);
  });
  afterEach(async () => {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('succeed on an empty cluster, without warnings, and again when re-run', async () => {
    const dist = synthOperatorApp(root);
    const commands = documentedCommands(dist);
    expect(commands).toStrictEqual([
      'kubectl apply -f dist/0-namespaces.yaml',
      'kubectl apply --server-side -f dist/1-crds.yaml',
      'kubectl wait --for condition=established --timeout=60s -f dist/1-crds.yaml',
      'kubectl apply -f dist/2-cluster-resources.yaml -f dist/3-namespaced-resources.yaml -f dist/4-custom-resources.yaml',
    ]);
    for (const round of [1, 2]) {
      for (const line of commands) {
        const r = await kubectl(line, root, kubeconfig);
        expect({ round, line, status: r.status, stderr: r.stderr }).toStrictEqual({ round, line, status: 0, stderr: '' });
      }
    }
    expect(server.get('samplecontroller.k8s.io/v1alpha1', 'Foo', 'foo-operator-system', 'example-foo')).toBeDefined();
    expect(server.get('apps/v1', 'Deployment', 'foo-operator-system', 'foo-operator')).toBeDefined();
    expect(server.get('rbac.authorization.k8s.io/v1', 'ClusterRole', undefined, 'foo-operator-manager')).toBeDefined();
  });

  test('a single apply of CRDs and custom resources together fails with "no matches for kind" (why the steps exist)', async () => {
    const dist = synthOperatorApp(root);
    const r = await kubectl(`kubectl apply -f ${path.join(dist, '1-crds.yaml')} -f ${path.join(dist, '4-custom-resources.yaml')}`, root, kubeconfig);
    expect(r.status).not.toBe(0);
    // A real apiserver answers "no matches for kind"; the fake fails one step earlier, in kubectl's
    // schema lookup for the not-yet-known kind. Either way the custom resource is not created.
    expect(r.stderr).toMatch(/no matches for kind "Foo"|ensure CRDs are installed first|could not find the requested resource/);
    expect(server.get('samplecontroller.k8s.io/v1alpha1', 'Foo', 'foo-operator-system', 'example-foo')).toBeUndefined();
  });
});

