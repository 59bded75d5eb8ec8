import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FakeApiServer, startFakeApiServer, waitFor } from '.';
import { sampleDbCrd } from './fixtures';

const KUBECTL = '/usr/bin/kubectl';
const run = promisify(execFile);
const suite = existsSync(KUBECTL) ? describe : describe.skip;
if (!existsSync(KUBECTL)) console.log(`kubectl tests: skipped — ${KUBECTL} not found`);

suite('kubectl v1.32 against the fake apiserver', () => {
  let server: FakeApiServer;
  let dir: string;
  const kubectl = async (...args: string[]) => {
    const out = await run(KUBECTL, ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args], { timeout: 30_000 });
    return out.stdout;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fake-apiserver-kubectl-'));
    server = await startFakeApiServer({ crds: [sampleDbCrd()] });
    server.writeKubeconfig(join(dir, 'kubeconfig'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('apply (client-side), get with printer columns, scale, server-side apply, delete', async () => {
    const manifest = join(dir, 'sdb.yaml');
    writeFileSync(manifest, 'apiVersion: db.example.com/v1\nkind: SampleDB\nmetadata: {name: k1}\nspec: {replicas: 2, version: "15"}\n');
    expect(await kubectl('apply', '-f', manifest)).toContain('sampledb.db.example.com/k1 created');
    const table = await kubectl('get', 'sdb');
    expect(table.split('\n')[0].split(/\s+/)).toEqual(['NAME', 'REPLICAS']);
    expect(table).toMatch(/^k1\s+2\s*$/m);

    expect(await kubectl('scale', 'sampledb/k1', '--replicas=4')).toContain('scaled');
    expect(server.get('db.example.com/v1', 'SampleDB', 'default', 'k1').spec.replicas).toBe(4);

    writeFileSync(manifest, 'apiVersion: db.example.com/v1\nkind: SampleDB\nmetadata: {name: k1}\nspec: {replicas: 5, version: "16"}\n');
    expect(await kubectl('apply', '-f', manifest)).toContain('configured');
    expect(server.get('db.example.com/v1', 'SampleDB', 'default', 'k1').spec).toEqual({ replicas: 5, version: '16' });

    writeFileSync(manifest, 'apiVersion: db.example.com/v1\nkind: SampleDB\nmetadata: {name: k2}\nspec: {replicas: 3}\n');
    expect(await kubectl('apply', '--server-side', '--field-manager=ops', '-f', manifest)).toContain('serverside-applied');
    const k2 = server.get('db.example.com/v1', 'SampleDB', 'default', 'k2');
    expect(k2.metadata.managedFields.map((m: any) => `${m.manager}/${m.operation}`)).toEqual(['ops/Apply']);

    const json = JSON.parse(await kubectl('get', 'sampledbs', '-o', 'json'));
    expect(json.items.map((i: any) => i.metadata.name)).toEqual(['k1', 'k2']);

    expect(await kubectl('delete', 'sdb', 'k1')).toContain('deleted');
    expect(server.get('db.example.com/v1', 'SampleDB', 'default', 'k1')).toBeUndefined();
  }, 60_000);

  test('server-side apply after client-side apply migrates field ownership (kubectl csaupgrade rewrites managedFields)', async () => {
    const manifest = join(dir, 'migrate.yaml');
    writeFileSync(manifest, 'apiVersion: db.example.com/v1\nkind: SampleDB\nmetadata: {name: m1}\nspec: {replicas: 2}\n');
    await kubectl('apply', '-f', manifest);
    const before = server.get('db.example.com/v1', 'SampleDB', 'default', 'm1');
    expect(before.metadata.managedFields.map((m: any) => `${m.manager}/${m.operation}`)).toEqual(['kubectl-client-side-apply/Update']);
    expect(await kubectl('apply', '--server-side', '-f', manifest)).toContain('serverside-applied');
    const after = server.get('db.example.com/v1', 'SampleDB', 'default', 'm1');
    expect(after.metadata.managedFields.map((m: any) => `${m.manager}/${m.operation}`).sort()).toEqual(['kubectl-last-applied/Apply', 'kubectl/Apply']);
  }, 60_000);

  test('rejections surface as kubectl errors with the apiserver message', async () => {
    const manifest = join(dir, 'bad.yaml');
    writeFileSync(manifest, 'apiVersion: db.example.com/v1\nkind: SampleDB\nmetadata: {name: bad}\nspec: {replicas: 9}\n');
    const err: any = await kubectl('apply', '-f', manifest).catch((e: unknown) => e);
    expect(err.stderr).toContain('spec: Invalid value: "object": at most 7');
  }, 60_000);

  test('get -w streams Table rows with printer columns', async () => {
    server.put({ apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name: 'watched', namespace: 'default' }, spec: { replicas: 1 } });
    const child = spawn(KUBECTL, ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), 'get', 'sdb', 'watched', '-w']);
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    try {
      await waitFor(() => /watched\s+1/.test(out), 20_000);
      const current = server.get('db.example.com/v1', 'SampleDB', 'default', 'watched');
      server.put({ ...current, spec: { replicas: 7 } });
      await waitFor(() => /watched\s+7/.test(out), 20_000);
      expect(out.split('\n')[0].split(/\s+/)).toEqual(['NAME', 'REPLICAS']);
    } finally {
      child.kill();
    }
  }, 60_000);

  test('with rbac: kubectl --as and kubectl auth can-i answer from Roles and bindings', async () => {
    // kubectl sends the bearer token only over TLS
    const secured = await startFakeApiServer({ crds: [sampleDbCrd()], rbac: true, tls: true });
    const kc = join(dir, 'rbac-kubeconfig');
    secured.writeKubeconfig(kc);
    const k = async (...args: string[]) => (await run(KUBECTL, ['--kubeconfig', kc, '--cache-dir', join(dir, 'cache-rbac'), ...args], { timeout: 30_000 })).stdout;
    try {
      secured.put({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'op', namespace: 'default' } });
      secured.put({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'op', namespace: 'default' }, rules: [{ apiGroups: ['db.example.com'], resources: ['sampledbs'], verbs: ['get', 'list'] }] });
      secured.put({
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'op', namespace: 'default' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'op' }, subjects: [{ kind: 'ServiceAccount', name: 'op', namespace: 'default' }],
      });
      const as = '--as=system:serviceaccount:default:op';
      expect((await k('auth', 'can-i', 'list', 'sampledbs.db.example.com', as)).trim()).toBe('yes');
      const no = await k('auth', 'can-i', 'delete', 'sampledbs.db.example.com', as).catch((e: any) => e.stdout);
      expect(no.trim()).toBe('no');
      secured.put({ apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name: 'x', namespace: 'default' }, spec: {} });
      expect(await k('get', 'sdb', as, '-o', 'name')).toBe('sampledb.db.example.com/x\n');
      const err: any = await k('get', 'configmaps', as).catch((e: unknown) => e);
      expect(err.stderr).toContain('User "system:serviceaccount:default:op" cannot list resource "configmaps" in API group "" in the namespace "default"');
    } finally {
      await secured.close();
    }
  }, 60_000);

  test('built-ins: deployment apply, scale, get', async () => {
    const manifest = join(dir, 'deploy.yaml');
    writeFileSync(manifest, [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata: {name: web}', 'spec:', '  selector: {matchLabels: {app: web}}',
      '  template:', '    metadata: {labels: {app: web}}', '    spec: {containers: [{name: c, image: "nginx:1.27"}]}', '',
    ].join('\n'));
    expect(await kubectl('apply', '-f', manifest)).toContain('deployment.apps/web created');
    await kubectl('scale', 'deployment/web', '--replicas=3');
    expect(await kubectl('get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}')).toBe('3');
    expect(await kubectl('apply', '-f', manifest)).toContain('unchanged');
    // client-side apply of a built-in sends a strategic merge patch: the container is merged by name
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('nginx:1.27', 'nginx:1.28'));
    expect(await kubectl('apply', '-f', manifest)).toContain('configured');
    const dep = server.get('apps/v1', 'Deployment', 'default', 'web');
    expect(dep.spec.template.spec.containers).toEqual([{
      name: 'c', image: 'nginx:1.28', imagePullPolicy: 'IfNotPresent', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
    }]);
    expect(dep.spec.replicas).toBe(3);
    expect(dep.metadata.generation).toBe(3);
    expect(await kubectl('get', 'crd', 'sampledbs.db.example.com', '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}')).toBe('True');
  }, 60_000);
});
