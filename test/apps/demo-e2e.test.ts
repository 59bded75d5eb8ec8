import { ChildProcess, execFile, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { describeEachApiServerVersion, FaultProxy, kubectl, KubectlResult, TestNamespace } from '../envtest';
import { until } from '../runtime/support';

const ROOT = path.join(__dirname, '..', '..');
const FOO = 'samplecontroller.k8s.io/v1alpha1';

/** One line of APPLY.md's block, run by a shell as a user pastes it (a line may be an `if`: the conditional files). */
function shell(kubeconfig: string, line: string, cwd: string): Promise<KubectlResult> {
  return new Promise((resolve) =>
    execFile(
      'sh',
      ['-c', line],
      { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, KUBECONFIG: kubeconfig } },
      (err, stdout, stderr) =>
        resolve({
          code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
          stdout,
          stderr: err && !stderr ? String(err) : stderr,
        }),
    ),
  );
}

/**
 * `npx cdk8s synth` of the demo apps (cdk8s.yaml's `app` command, run in the repository), once for this file: the
 * output does not depend on the apiserver version, so every version's suite applies a copy of the same dist/.
 */
let synthDir: string | undefined;
function synthesized(): string {
  if (!synthDir) {
    const app = /^app: (.+)$/m.exec(fs.readFileSync(path.join(ROOT, 'cdk8s.yaml'), 'utf8'))![1];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-e2e-synth-'));
    execFileSync('sh', ['-c', app], {
      cwd: ROOT,
      env: { ...process.env, CDK8S_OUTDIR: path.join(dir, 'dist'), CDK8S_OPERATOR_QUIET: '1' },
      stdio: 'pipe',
    });
    synthDir = dir;
  }
  return path.join(synthDir, 'dist');
}
afterAll(() => {
  if (synthDir) fs.rmSync(synthDir, { recursive: true, force: true });
});

// The demo end to end, as a user runs it: `npx cdk8s synth` output applied with the documented commands to a
// real kube-apiserver (RBAC, Pod Security admission) with kube-controller-manager, then each controller run
// out-of-cluster with its chart's ServiceAccount identity (a TokenRequest token), through a proxy that only
// records what the controller asked and what the apiserver answered. On each supported version's apiserver
// (1.28, 1.32, 1.36): the demo targets 1.28 to 1.37, and its runtime (watches, server-side apply, leader election)
// must work on each.
describeEachApiServerVersion(
  "demo apps under their charts' identities",
  (plane, version) => {
    let dir: string;
    let admin: string;
    let defaults: TestNamespace;
    const children: ChildProcess[] = [];
    const proxies: FaultProxy[] = [];

    /** Starts a controller binary with a ServiceAccount's identity, through its own recording proxy. */
    async function runController(
      main: string,
      namespace: string,
      account: string,
      env: Record<string, string> = {},
      args: string[] = [],
    ): Promise<FaultProxy> {
      const proxy = await FaultProxy.start(plane());
      proxies.push(proxy);
      const kubeconfig = path.join(dir, `${account}.kubeconfig`);
      proxy.writeKubeconfig(kubeconfig, await plane().serviceAccount(namespace, account));
      children.push(
        spawn(
          process.execPath,
          [
            path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
            path.join(ROOT, main),
            '--metrics-bind-address=0',
            '--health-probe-bind-address=0',
            '--leader-elect',
            `--leader-election-namespace=${namespace}`,
            ...args,
          ],
          {
            env: { ...process.env, KUBECONFIG: kubeconfig, LOG_LEVEL: 'error', ...env },
            stdio: ['ignore', 'ignore', 'inherit'],
            detached: true, // its own process group: tsx runs the controller in a child process of its own
          },
        ),
      );
      return proxy;
    }

    let sampleDbProxy: FaultProxy | undefined;
    let operatorPods: TestNamespace | undefined;

    /**
     * What `kubectl rollout status deployment/sampledb-operator` waits for, on a control plane without a kubelet or
     * kube-proxy: the operator's pods "run" (stand-in kubelet), and its webhooks are served by the SampleDB binary run
     * out-of-cluster with its chart's identity, the chart's webhook configurations pointed at it by envtest
     * (`installWebhooks`, as controller-runtime's envtest does: a url on 127.0.0.1 and a CA made for the test).
     */
    async function serveSampleDbWebhooks(): Promise<void> {
      operatorPods = new TestNamespace(plane(), 'sampledb-operator-system', () => 'Running');
      // Only the admission webhook configurations: SampleDB's conversion is served by the binary only in the cluster
      // (the demo's custom resources are written at the storage version, v2, which needs no conversion).
      const configurations = fs
        .readdirSync(path.join(dir, 'dist'))
        .filter((f) => f.endsWith('.yaml'))
        .flatMap((f) => YAML.parseAllDocuments(fs.readFileSync(path.join(dir, 'dist', f), 'utf8')).map((d) => d.toJS()))
        .filter((o) => /^(Validating|Mutating)WebhookConfiguration$/.test(o?.kind));
      const hooks = await plane().installWebhooks({ configurations });
      const certDir = path.join(dir, 'webhook-certs');
      fs.mkdirSync(certDir, { recursive: true });
      fs.writeFileSync(path.join(certDir, 'tls.crt'), hooks.certificate.cert);
      fs.writeFileSync(path.join(certDir, 'tls.key'), hooks.certificate.key);
      sampleDbProxy = await runController(
        'controllers/sampledb/main.ts',
        'sampledb-operator-system',
        'sampledb-operator',
        { WATCH_NAMESPACE: 'default', WEBHOOK_CERTIFICATES: 'files', WEBHOOK_CERT_DIR: certDir },
        [`--webhook-bind-address=${hooks.bindAddress}`],
      );
      const probe = {
        apiVersion: 'database.example.com/v2',
        kind: 'SampleDB',
        metadata: { name: 'probe', namespace: 'default' },
        spec: { version: '16' },
      };
      await until(
        'the SampleDB webhooks answer',
        async () =>
          (
            await plane().request(
              'POST',
              '/apis/database.example.com/v2/namespaces/default/sampledbs?dryRun=All',
              probe,
            )
          ).code === 201,
        60_000,
        200,
      );
    }

    const denied = (proxy: FaultProxy) =>
      proxy.requests.filter((r) => r.code === 403).map((r) => `${r.verb} ${r.resource}/${r.name ?? ''}`);

    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-e2e-'));
      fs.cpSync(synthesized(), path.join(dir, 'dist'), { recursive: true });
      admin = path.join(dir, 'admin.kubeconfig');
      plane().writeKubeconfig(admin);
      // the demo's custom resources live in `default`: its pods "run" (Deployments become available)
      defaults = new TestNamespace(plane(), 'default', () => 'Running');
    });
    afterAll(async () => {
      for (const c of children) if (c.exitCode === null) process.kill(-c.pid!, 'SIGKILL');
      for (const p of proxies) await p.close();
      defaults?.stop();
      operatorPods?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test("the apply commands of dist/APPLY.md (docs/operators.md shows them) succeed without warnings, and the Foo controller converges with its chart's identity", async () => {
      const guide = fs.readFileSync(path.join(dir, 'dist', 'APPLY.md'), 'utf8');
      const lines = /```sh\n([\s\S]*?)```/.exec(guide)![1].trim().split('\n');
      expect(lines).toContain(
        'kubectl rollout status --timeout=300s -n sampledb-operator-system deployment/sampledb-operator',
      );
      for (const line of lines) {
        if (line.startsWith('kubectl rollout status')) await serveSampleDbWebhooks();
        const r = await shell(admin, line, dir);
        expect({ line, code: r.code, stderr: r.stderr }).toEqual({ line, code: 0, stderr: '' });
      }
      expect(await defaults.get(FOO, 'Foo', 'example-foo')).toBeDefined();
      // the switchover policy needs admissionregistration.k8s.io/v1 policies (1.30+): applied where served, skipped on 1.28
      const policy = await plane().request(
        'GET',
        '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/sampledb-switchover',
      );
      expect({ version, policy: policy.code }).toStrictEqual({ version, policy: version === '1.28' ? 404 : 200 });

      const identity = await plane().serviceAccount('foo-controller-system', 'foo-controller');
      const canI = path.join(dir, 'can-i.kubeconfig');
      plane().writeKubeconfig(canI, identity);
      expect(
        (
          await kubectl(canI, [
            'auth',
            'can-i',
            'patch',
            'foos.samplecontroller.k8s.io',
            '--subresource=status',
            '-n',
            'default',
          ])
        ).stdout.trim(),
      ).toBe('yes');
      expect((await kubectl(canI, ['auth', 'can-i', 'list', 'secrets', '-A'])).stdout.trim()).toBe('no');

      const proxy = await runController('controllers/foo/main.ts', 'foo-controller-system', 'foo-controller');
      const deployment = await until(
        'Deployment example-foo',
        () => defaults.get('apps/v1', 'Deployment', 'example-foo'),
        60_000,
        200,
      );
      expect(deployment.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'Foo', name: 'example-foo', controller: true, blockOwnerDeletion: true }),
      ]);
      // the deployment controller reports the pods the stand-in kubelet runs; the Foo's status follows
      await until(
        'Foo status',
        async () =>
          (await defaults.get(FOO, 'Foo', 'example-foo'))?.status?.availableReplicas === deployment.spec.replicas,
        60_000,
        200,
      );
      expect(
        proxy.requests.filter((r) => r.verb === 'patch' && r.subresource === 'status' && r.code === 200).length,
      ).toBeGreaterThan(0);
      expect(denied(proxy)).toEqual([]);
    }, 180_000);

    test("the SampleDB controller, with its chart's identity, creates the example databases' objects without a denied request", async () => {
      // Started by the first test (it serves the webhooks the custom resources went through), with WATCH_NAMESPACE as
      // the chart's Deployment sets it (its RBAC is a Role in that namespace).
      const proxy = sampleDbProxy!;
      expect(proxy).toBeDefined();
      // my-db was defaulted by the webhook at create (the CRD has no schema default for spec.storage)
      expect((await defaults.get('database.example.com/v2', 'SampleDB', 'my-db')).spec.storage).toBe('1Gi');
      const sts = await until(
        'StatefulSet my-db',
        () => defaults.get('apps/v1', 'StatefulSet', 'my-db'),
        60_000,
        200,
      ).catch((e) => {
        throw new Error(
          `${e.message}; requests as the operator: ${JSON.stringify(proxy.requests.map((r) => `${r.verb} ${r.resource}/${r.name ?? ''} ${r.code}`))}`,
        );
      });
      expect(sts.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'SampleDB', name: 'my-db', controller: true }),
      ]);
      for (const resource of ['secrets', 'services', 'statefulsets']) {
        expect([
          resource,
          proxy.requests.some(
            (r) => r.resource === resource && r.code < 300 && (r.verb === 'create' || r.verb === 'patch'),
          ),
        ]).toEqual([resource, true]);
      }
      expect(denied(proxy)).toEqual([]);
    }, 180_000);
  },
  { shared: true, controllerManager: true },
);
