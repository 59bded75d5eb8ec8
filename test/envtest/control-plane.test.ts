import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describeRealApiServer, kubectl, StandInKubelet } from '.';
import { findControlPlaneBinaries, readCrds } from '../../runtime/envtest';
import { ManagedProcess } from '../../runtime/envtest/process';
import { tsxCommand, until } from '../runtime/support';

function exe(dir: string, name: string): string {
  const p = join(dir, name);
  writeFileSync(p, '#!/bin/sh\n');
  chmodSync(p, 0o755);
  return p;
}

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.test.example.com' },
  spec: {
    group: 'test.example.com',
    scope: 'Namespaced',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { size: { type: 'integer', maximum: 3 } },
                'x-kubernetes-validations': [{ rule: 'self.size != 2', message: 'two is not a size' }],
              },
            },
          },
        },
      },
    ],
  },
};

describe('control-plane binaries (KUBEBUILDER_ASSETS)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'envtest-assets-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('explain what is missing', () => {
    expect(findControlPlaneBinaries({})).toEqual({ missing: expect.stringContaining('KUBEBUILDER_ASSETS is not set') });
    expect(findControlPlaneBinaries({ KUBEBUILDER_ASSETS: dir, PATH: '' })).toEqual({
      missing: `kube-apiserver not found in KUBEBUILDER_ASSETS (${dir})`,
    });
    exe(dir, 'kube-apiserver');
    expect(findControlPlaneBinaries({ KUBEBUILDER_ASSETS: dir, PATH: '' })).toEqual({
      missing: `etcd not found in KUBEBUILDER_ASSETS (${dir}) or on PATH`,
    });
  });

  test('etcd beside kube-apiserver wins over PATH; kube-controller-manager is optional', () => {
    const api = exe(dir, 'kube-apiserver');
    const bin = mkdtempSync(join(tmpdir(), 'envtest-path-'));
    try {
      const onPath = exe(bin, 'etcd');
      expect(findControlPlaneBinaries({ KUBEBUILDER_ASSETS: dir, PATH: bin })).toEqual({
        binaries: { kubeApiServer: api, etcd: onPath },
      });
      const local = exe(dir, 'etcd');
      const kcm = exe(dir, 'kube-controller-manager');
      expect(findControlPlaneBinaries({ KUBEBUILDER_ASSETS: dir, PATH: bin })).toEqual({
        binaries: { kubeApiServer: api, etcd: local, kubeControllerManager: kcm },
      });
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  test('the publishable helper depends only on node built-ins, client-node, yaml and the runtime', () => {
    const envtestDir = join(__dirname, '../../runtime/envtest');
    const imports = readdirSync(envtestDir)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        [...readFileSync(join(envtestDir, f), 'utf8').matchAll(/(?:from|require\()\s*['"]([^'"]+)['"]/g)].map(
          (m) => m[1],
        ),
      );
    const allowed = (m: string) =>
      m.startsWith('node:') ||
      m === 'yaml' ||
      m === '@kubernetes/client-node' ||
      /^\.\/[\w-]+$/.test(m) ||
      m === '../client-node' ||
      m === '../webhook/certificates' ||
      m === '../resource';
    expect(imports.filter((m) => !allowed(m))).toEqual([]);
  });

  test('a paused (SIGSTOP) process stops at once: it gets the SIGTERM and continues, without waiting for the SIGKILL', async () => {
    // a process that handles SIGTERM, as etcd and kube-apiserver do (a stopped process dies of an unhandled one at once)
    const handled = "process.on('SIGTERM', () => process.exit(0)); console.log('ready'); setInterval(() => {}, 1000)";
    const sleeper = new ManagedProcess('node', process.execPath, ['-e', handled]);
    await until('the process handles SIGTERM', () => sleeper.log.includes('ready'), 20_000, 20);
    await sleeper.freeze();
    const started = Date.now();
    await sleeper.stop(60_000);
    expect(sleeper.running).toBe(false);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  test('freeze() returns only once every thread of the process has stopped', async () => {
    // a busy process with several threads (V8's workers): right after kill(SIGSTOP) some thread was still running in 9
    // of 200 tries on a quiet host and 169 of 200 on a loaded one
    const busy = new ManagedProcess('busy', process.execPath, ['-e', "console.log('ready'); for (;;) {}"]);
    try {
      await until('the busy process to start', () => busy.log.includes('ready'), 20_000, 20);
      const states = () =>
        readdirSync(`/proc/${busy.pid}/task`).map(
          (tid) => readFileSync(`/proc/${busy.pid}/task/${tid}/stat`, 'utf8').split(') ')[1][0],
        );
      const running: string[][] = [];
      for (let i = 0; i < 100; i++) {
        await busy.freeze();
        const now = states();
        if (now.some((s) => s !== 'T')) running.push(now);
        busy.thaw();
      }
      expect(running).toEqual([]);
    } finally {
      await busy.stop(1000);
    }
  });

  test('readCrds takes only the CRDs of synth output', () => {
    writeFileSync(
      join(dir, '1-crds.yaml'),
      [widgetCrd, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }]
        .map((d) => stringify(d))
        .join('---\n'),
    );
    writeFileSync(join(dir, 'notes.md'), '# not yaml');
    expect(readCrds([dir])).toEqual([widgetCrd]);
    expect(readCrds([join(dir, '1-crds.yaml')])).toEqual([widgetCrd]);
  });
});

describeRealApiServer(
  'envtest control plane',
  (plane) => {
    let work: string;
    beforeAll(() => {
      work = mkdtempSync(join(tmpdir(), 'envtest-kubectl-'));
      writeFileSync(join(work, 'crds.yaml'), stringify(widgetCrd));
    });
    afterAll(() => rmSync(work, { recursive: true, force: true }));

    test('kubectl verifies the serving certificate against the cluster CA and authenticates with the token', async () => {
      const kc = join(work, 'admin.kubeconfig');
      plane().writeKubeconfig(kc);
      const ok = await kubectl(kc, ['get', 'namespace', 'default', '-o', 'name']);
      expect(ok).toEqual({ code: 0, stdout: 'namespace/default\n', stderr: '' });
      // a kubeconfig without the CA must fail verification (no silent insecure fallback)
      const noCa = join(work, 'no-ca.kubeconfig');
      writeFileSync(
        noCa,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          'current-context': 'c',
          clusters: [{ name: 'c', cluster: { server: plane().url } }],
          users: [{ name: 'u', user: { token: plane().admin.token } }],
          contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
        }),
      );
      const refused = await kubectl(noCa, ['get', 'namespace', 'default']);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/certificate signed by unknown authority/);
    });

    test('CRDs from synth output are installed Established and validated by the apiserver', async () => {
      await plane().installCrds(readCrds([join(work, 'crds.yaml')]));
      const ns = await plane().createNamespace('widgets-');
      const path = `/apis/test.example.com/v1/namespaces/${ns}/widgets`;
      const bad = await plane().request('POST', path, {
        apiVersion: 'test.example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: { size: 2 },
      });
      expect([bad.code, bad.body.message]).toEqual([422, expect.stringContaining('two is not a size')]);
      const good = await plane().request('POST', path, {
        apiVersion: 'test.example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: { size: 1 },
      });
      expect(good.code).toBe(201);
    });

    test('a ServiceAccount identity gets exactly the RBAC bound to it', async () => {
      const ns = await plane().createNamespace('rbac-');
      const id = await plane().serviceAccount(ns, 'reader');
      const kc = join(work, 'reader.kubeconfig');
      plane().writeKubeconfig(kc, id);
      expect((await kubectl(kc, ['auth', 'can-i', 'list', 'configmaps', '-n', ns])).stdout.trim()).toBe('no');
      await plane().request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
        metadata: { name: 'cm' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
      });
      await plane().request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
        metadata: { name: 'cm' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm' },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: ns }],
      });
      expect((await kubectl(kc, ['auth', 'can-i', 'list', 'configmaps', '-n', ns])).stdout.trim()).toBe('yes');
      const denied = await plane().request('GET', `/api/v1/namespaces/${ns}/secrets`, undefined, { identity: id });
      expect([denied.code, denied.body.message]).toEqual([
        403,
        `secrets is forbidden: User "system:serviceaccount:${ns}:reader" cannot list resource "secrets" in API group "" in the namespace "${ns}"`,
      ]);
    });

    test("admission: PodSecurity warns and enforces, ServiceAccount requires the pod's account", async () => {
      const ns = await plane().createNamespace('psa-', { 'pod-security.kubernetes.io/enforce': 'restricted' });
      const pod = (sa: string) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `p-${sa}` },
        spec: { serviceAccountName: sa, containers: [{ name: 'c', image: 'busybox' }] },
      });
      const refused = await plane().request('POST', `/api/v1/namespaces/${ns}/pods`, pod('default'));
      expect([refused.code, refused.body.message]).toEqual([
        403,
        expect.stringContaining('violates PodSecurity "restricted:latest"'),
      ]);
      const open = await plane().createNamespace('sa-');
      const noAccount = await plane().request('POST', `/api/v1/namespaces/${open}/pods`, pod('ghost'));
      expect([noAccount.code, noAccount.body.message]).toEqual([
        403,
        expect.stringContaining('serviceaccount "ghost" not found'),
      ]);
    });

    test('compacting etcd makes an old resourceVersion 410 Gone', async () => {
      const ns = await plane().createNamespace('compact-');
      const first = await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'a' } });
      await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'b' } });
      await plane().compactEtcd();
      const old = await plane().request(
        'GET',
        `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${first.body.metadata.resourceVersion}&resourceVersionMatch=Exact`,
      );
      expect([old.code, old.body.reason]).toEqual([410, 'Expired']);
    });

    test('kube-controller-manager: a Job completes through the real job controller once its pod "ran"; GC deletes what it owned', async () => {
      const ns = await plane().createNamespace('jobs-');
      const kubelet = new StandInKubelet(plane(), { namespace: ns }).start();
      try {
        const job = await plane().request('POST', `/apis/batch/v1/namespaces/${ns}/jobs`, {
          metadata: { name: 'once' },
          spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
        });
        expect(job.code).toBe(201);
        const done = await until(
          'Job Complete',
          async () => {
            const got = await plane().request('GET', `/apis/batch/v1/namespaces/${ns}/jobs/once`);
            return (
              (got.body.status?.conditions ?? []).some((c: any) => c.type === 'Complete' && c.status === 'True') &&
              got.body
            );
          },
          30_000,
          100,
        );
        expect(done.status.succeeded).toBe(1);
        expect(kubelet.handled).toHaveLength(1);
        await plane().request('DELETE', `/apis/batch/v1/namespaces/${ns}/jobs/once`, {
          propagationPolicy: 'Background',
        });
        await until(
          'pods garbage-collected',
          async () => (await plane().request('GET', `/api/v1/namespaces/${ns}/pods`)).body.items.length === 0,
          30_000,
          100,
        );
      } finally {
        kubelet.stop();
      }
    }, 90_000);

    test('pause(): etcd, kube-apiserver and kube-controller-manager take no CPU until resume(); then all three work again', async () => {
      const pids = spawnSync('pgrep', ['-f', plane().dir], { encoding: 'utf8' }).stdout.trim().split('\n').map(Number);
      const commands = pids.map((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
      expect(commands).toEqual(expect.arrayContaining(['etcd', 'kube-apiserver', 'kube-controller']));
      // state and CPU ticks (user, system) of each process: /proc/<pid>/stat, fields 3, 14 and 15
      const stat = () =>
        pids.map((pid) => {
          const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
          return { state: f[0], ticks: Number(f[11]) + Number(f[12]) };
        });
      await plane().pause();
      try {
        const paused = stat();
        await new Promise((r) => setTimeout(r, 2000));
        expect(stat()).toEqual(paused);
        expect(paused.map((p) => p.state)).toEqual(pids.map(() => 'T'));
      } finally {
        // the later tests use this plane
        await plane().resume();
      }
      expect(stat().map((p) => p.state)).not.toContain('T');
      // kube-controller-manager's garbage collector works again: a ConfigMap goes with its owner
      const ns = await plane().createNamespace('paused-');
      const owner = await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        metadata: { name: 'owner' },
      });
      expect(owner.code).toBe(201);
      const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.body.metadata.uid }];
      const dependent = { metadata: { name: 'dependent', ownerReferences } };
      expect((await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, dependent)).code).toBe(201);
      expect((await plane().request('DELETE', `/api/v1/namespaces/${ns}/configmaps/owner`)).code).toBe(200);
      await until(
        'the dependent ConfigMap garbage-collected',
        async () => (await plane().request('GET', `/api/v1/namespaces/${ns}/configmaps/dependent`)).code === 404,
        30_000,
        100,
      );
    }, 90_000);

    test("unref(): a process that holds only the plane exits by itself, and the plane's processes end with it; ref() holds it again", async () => {
      const run = (mode: 'unref' | 'ref') => {
        const fixture = tsxCommand(join(__dirname, 'unref-plane.fixture.ts'), [mode]);
        const r = spawnSync(fixture.command, fixture.args, { env: fixture.env, encoding: 'utf8', timeout: 200_000 });
        expect(r.status).toBe(0);
        const said = r.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { dir?: string; held?: boolean });
        return { dir: said[0].dir!, held: said.some((l) => l.held) };
      };
      const planeProcesses = (dir: string) =>
        spawnSync('pgrep', ['-f', dir], { encoding: 'utf8' }).stdout.trim().split('\n').filter(Boolean);

      const unreferenced = run('unref');
      try {
        expect(unreferenced.held).toBe(false);
        // killed by the exiting process (SIGKILL): gone as soon as the kernel has reaped them
        await until(
          "the unreferenced plane's etcd and kube-apiserver to end",
          () => planeProcesses(unreferenced.dir).length === 0,
          10_000,
        );
      } finally {
        spawnSync('pkill', ['-KILL', '-f', unreferenced.dir]);
        rmSync(unreferenced.dir, { recursive: true, force: true });
      }

      const referenced = run('ref');
      expect(referenced.held).toBe(true);
      expect(planeProcesses(referenced.dir)).toEqual([]);
    }, 400_000);

    test('restarting the apiserver keeps the data', async () => {
      const ns = await plane().createNamespace('restart-');
      await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'kept' } });
      await plane().restartApiServer();
      expect((await plane().request('GET', `/api/v1/namespaces/${ns}/configmaps/kept`)).code).toBe(200);
    }, 90_000);
  },
  { controllerManager: true },
);
