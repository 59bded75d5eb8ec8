import { execFile, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import * as YAML from 'yaml';
import { CustomResourceDefinition, Operator, OperatorApp, OutputLayout } from '../../lib';
import { describeRealApiServer } from '../envtest';
import { SAMPLE_CONTROLLER_FIXTURES } from '../fixtures/recorded/paths';

// Runs the exact commands APPLY.md documents, with a real kubectl, against a real kube-apiserver (RBAC,
// Pod Security admission: any warning fails). What the operator's identity may do: envtest-rbac.test.ts.
const FIXTURES = SAMPLE_CONTROLLER_FIXTURES;
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
if (!hasKubectl || !fs.existsSync(FIXTURES)) throw new Error(`apply-commands needs kubectl on PATH and ${FIXTURES}`);

/** `watchNamespaces`: the example goes to the first one, which nothing but the app's output creates. */
function synthOperatorApp(root: string, watchNamespaces?: string[]): string {
  const app = new OperatorApp({ outdir: path.join(root, 'dist'), layout: OutputLayout.APPLY_ORDER });
  const chart = new Chart(app, 'foo');
  const crd = CustomResourceDefinition.fromFile(chart, 'crd', path.join(FIXTURES, 'crd.yaml'));
  new Operator(chart, 'foo-operator', {
    crds: [crd],
    image: 'ghcr.io/acme/foo:0.1.0',
    replicas: 2,
    watchNamespaces,
    contract: {
      watches: [crd],
      owns: [{ apiVersion: 'apps/v1', kind: 'Deployment' }],
      status: true,
      finalizers: true,
      events: true,
      leaderElection: true,
    },
  });
  const example = YAML.parse(fs.readFileSync(path.join(FIXTURES, 'example-foo.yaml'), 'utf8'));
  new ApiObject(
    new Chart(app, 'examples', { namespace: watchNamespaces?.[0] ?? 'foo-operator-system' }),
    'example',
    example,
  );
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

/** Runs one command line. */
function kubectl(line: string, cwd: string, kubeconfig: string): Promise<{ status: number; stderr: string }> {
  const args = line.split(' ');
  expect(args[0]).toBe('kubectl');
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      args.slice(1),
      { cwd, encoding: 'utf8', env: { ...process.env, KUBECONFIG: kubeconfig }, timeout: 90_000 },
      (err, _stdout, stderr) => resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr }),
    );
  });
}

// One cluster for both tests, in this order: the failing single apply needs a cluster without the CRD.
describeRealApiServer(
  'the documented apply commands (kubectl)',
  (plane) => {
    let root: string;
    let kubeconfig: string;
    const get = async (url: string) => (await plane().request('GET', url)).code;
    beforeEach(async () => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'apply-'));
      kubeconfig = path.join(root, 'kubeconfig');
      plane().writeKubeconfig(kubeconfig);
    });
    afterEach(async () => {
      fs.rmSync(root, { recursive: true, force: true });
    });

    test('a single apply of CRDs and custom resources together fails (why the steps exist)', async () => {
      const dist = synthOperatorApp(root);
      const r = await kubectl(
        `kubectl apply -f ${path.join(dist, '1-crds.yaml')} -f ${path.join(dist, '4-custom-resources.yaml')}`,
        root,
        kubeconfig,
      );
      expect(r.status).not.toBe(0);
      // Which error depends on timing: kubectl's discovery either does not know the kind yet, or already lists it
      // while the apiserver does not serve it yet (the CRD is not Established): both seen on this apiserver.
      expect(r.stderr).toMatch(
        new RegExp(
          [
            'no matches for kind "Foo" in version "samplecontroller\\.k8s\\.io/v1alpha1"[\\s\\S]*ensure CRDs are installed first',
            'NotFound.*the server could not find the requested resource \\(post foos\\.samplecontroller\\.k8s\\.io\\)',
          ].join('|'),
        ),
      );
      expect(
        await get('/apis/samplecontroller.k8s.io/v1alpha1/namespaces/foo-operator-system/foos/example-foo'),
      ).not.toBe(200);
    });

    test('succeed on a cluster without them, without warnings, and again when re-run', async () => {
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
          expect({ round, line, status: r.status, stderr: r.stderr }).toStrictEqual({
            round,
            line,
            status: 0,
            stderr: '',
          });
        }
      }
      expect(await get('/apis/samplecontroller.k8s.io/v1alpha1/namespaces/foo-operator-system/foos/example-foo')).toBe(
        200,
      );
      expect(await get('/apis/apps/v1/namespaces/foo-operator-system/deployments/foo-operator')).toBe(200);
      expect(await get('/apis/rbac.authorization.k8s.io/v1/clusterroles/foo-operator-manager')).toBe(200);
    });

    test('succeed for an operator watching namespaces the cluster does not have yet (created by default)', async () => {
      const dist = synthOperatorApp(root, ['team-a', 'team-b']);
      for (const line of documentedCommands(dist)) {
        const r = await kubectl(line, root, kubeconfig);
        expect({ line, status: r.status, stderr: r.stderr }).toStrictEqual({ line, status: 0, stderr: '' });
      }
      expect(await get('/api/v1/namespaces/team-b')).toBe(200);
      expect(await get('/apis/rbac.authorization.k8s.io/v1/namespaces/team-b/roles/foo-operator-manager')).toBe(200);
      expect(await get('/apis/samplecontroller.k8s.io/v1alpha1/namespaces/team-a/foos/example-foo')).toBe(200);
    });
  },
  { shared: true },
);
