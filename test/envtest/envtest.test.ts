import { connect } from 'node:net';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiServerArgs, etcdArgs, findEnvtestAssets, forEachApiServer, installCrds, rawRequest, startEnvtest, supportsFlag } from '.';
import { startFakeApiServer } from '../fake-apiserver';
import { loadClientNode } from '../fake-apiserver';
import { sampleDbCrd } from '../fake-apiserver/fixtures';

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1', () => {
      sock.destroy();
      resolve(true);
    });
    sock.on('error', () => resolve(false));
  });
}

function exe(dir: string, name: string, body: string): string {
  const p = join(dir, name);
  writeFileSync(p, body);
  chmodSync(p, 0o755);
  return p;
}

describe('envtest asset lookup', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'envtest-assets-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('explains why it cannot run', () => {
    expect(findEnvtestAssets({})).toEqual({ skipReason: 'KUBEBUILDER_ASSETS not set' });
    expect(findEnvtestAssets({ KUBEBUILDER_ASSETS: dir, PATH: '' })).toEqual({ skipReason: `kube-apiserver not found in KUBEBUILDER_ASSETS (${dir})` });
    exe(dir, 'kube-apiserver', '#!/bin/sh\n');
    expect(findEnvtestAssets({ KUBEBUILDER_ASSETS: dir, PATH: '' })).toEqual({ skipReason: `etcd not found in KUBEBUILDER_ASSETS (${dir}) or on PATH` });
  });

  test('finds etcd next to kube-apiserver, else on PATH', () => {
    const api = exe(dir, 'kube-apiserver', '#!/bin/sh\n');
    const bin = mkdtempSync(join(tmpdir(), 'envtest-path-'));
    try {
      const onPath = exe(bin, 'etcd', '#!/bin/sh\n');
      expect(findEnvtestAssets({ KUBEBUILDER_ASSETS: dir, PATH: bin })).toEqual({ assets: { kubeApiServer: api, etcd: onPath } });
      const local = exe(dir, 'etcd', '#!/bin/sh\n');
      expect(findEnvtestAssets({ KUBEBUILDER_ASSETS: dir, PATH: bin })).toEqual({ assets: { kubeApiServer: api, etcd: local } });
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  test('supportsFlag reads --help like controller-runtime CheckFlag', () => {
    const etcd = exe(dir, 'etcd', '#!/bin/sh\necho "  --unsafe-no-fsync  Disables fsync"\n');
    expect(supportsFlag(etcd, 'unsafe-no-fsync')).toBe(true);
    const old = exe(dir, 'etcd-3.4', '#!/bin/sh\necho "  --data-dir"\n');
    expect(supportsFlag(old, 'unsafe-no-fsync')).toBe(false);
  });

  test('startEnvtest resolves undefined without binaries', async () => {
    expect(await startEnvtest({ env: {} })).toBeUndefined();
  });

  test('flags follow controller-runtime envtest', () => {
    const layout = { dir: '/x', etcdPort: 1, etcdPeerPort: 2, apiServerPort: 3, token: 't' };
    const args = apiServerArgs(layout);
    for (const f of ['--etcd-servers=http://127.0.0.1:1', '--secure-port=3', '--service-cluster-ip-range=10.0.0.0/24', '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount', '--authorization-mode=RBAC', '--service-account-issuer=https://127.0.0.1:3/',
      '--service-account-key-file=/x/sa.pub', '--service-account-signing-key-file=/x/sa.key', '--token-auth-file=/x/tokens.csv']) {
      expect(args).toContain(f);
    }
    expect(etcdArgs(layout)).toContain('--listen-client-urls=http://127.0.0.1:1');
    expect(etcdArgs(layout)).toContain('--unsafe-no-fsync=true');
    expect(etcdArgs(layout, false)).not.toContain('--unsafe-no-fsync=true');
  });
});

describe('installCrds', () => {
  test('creates CRDs verbatim (x-kubernetes-validations survive) and waits for Established', async () => {
    const fake = await startFakeApiServer();
    try {
      await installCrds({ url: fake.url }, [sampleDbCrd()]);
      await installCrds({ url: fake.url }, [sampleDbCrd()]); // already there: fine
      const r = await rawRequest(fake.url, undefined, 'POST', '/apis/db.example.com/v1/namespaces/default/sampledbs',
        { apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name: 'x' }, spec: { replicas: 9 } });
      expect(r.code).toBe(422);
      expect(r.body.message).toContain('at most 7');
    } finally {
      await fake.close();
    }
  });
});

// Process orchestration, exercised with stand-in binaries (no real kube-apiserver exists on this machine):
// a node "etcd" answering /health and a node "kube-apiserver" serving HTTPS /readyz only to the static token.
const hasOpenssl = existsSync('/usr/bin/openssl');
(hasOpenssl ? describe : describe.skip)('startEnvtest process orchestration (stand-in binaries)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'envtest-bin-'));
    exe(dir, 'etcd', `#!/usr/bin/env node
const url = new URL(process.argv.find(a => a.startsWith('--listen-client-urls=')).split('=')[1]);
require('http').createServer((q, s) => s.end(q.url === '/health' ? '{"health":"true"}' : '')).listen(Number(url.port), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
`);
    exe(dir, 'kube-apiserver', `#!/usr/bin/env node
const fs = require('fs'), path = require('path'), cp = require('child_process');
const arg = (n) => process.argv.find(a => a.startsWith('--' + n + '=')).slice(n.length + 3);
const certDir = arg('cert-dir'); fs.mkdirSync(certDir, { recursive: true });
cp.execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1',
  '-keyout', path.join(certDir, 'apiserver.key'), '-out', path.join(certDir, 'apiserver.crt')], { stdio: 'ignore' });
fs.writeFileSync(path.join(path.dirname(certDir), 'argv.json'), JSON.stringify(process.argv.slice(2)));
const token = fs.readFileSync(arg('token-auth-file'), 'utf8').split(',')[0];
require('https').createServer({ key: fs.readFileSync(path.join(certDir, 'apiserver.key')), cert: fs.readFileSync(path.join(certDir, 'apiserver.crt')) }, (q, s) => {
  if (q.headers.authorization !== 'Bearer ' + token) { s.statusCode = 401; return s.end('{"kind":"Status","code":401}'); }
  s.setHeader('Content-Type', 'application/json');
  if (q.url === '/readyz') return s.end('ok');
  if (q.url.startsWith('/api/v1/namespaces')) return s.end(JSON.stringify({ kind: 'NamespaceList', apiVersion: 'v1', metadata: {}, items: [{ metadata: { name: 'default' } }] }));
  s.statusCode = 404; s.end('{}');
}).listen(Number(arg('secure-port')), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('starts both, waits for /readyz with the token, serves a working kubeconfig, and cleans up on close', async () => {
    const env = { KUBEBUILDER_ASSETS: dir, PATH: '' };
    const server = await startEnvtest({ env, startTimeoutMs: 30_000 });
    expect(server).toBeDefined();
    const argv: string[] = JSON.parse(readFileSync(join(server!.dir, 'argv.json'), 'utf8'));
    expect(argv).toContain('--authorization-mode=RBAC');
    expect(readFileSync(join(server!.dir, 'sa.key'), 'utf8')).toContain('BEGIN RSA PRIVATE KEY');

    const k8s = loadClientNode();
    const core = server!.kubeConfig().makeApiClient(k8s.CoreV1Api);
    const namespaces = await core.listNamespace();
    expect(namespaces.items.map((n) => n.metadata?.name)).toEqual(['default']);

    const kubeconfig = join(dir, 'kubeconfig');
    server!.writeKubeconfig(kubeconfig);
    expect(JSON.parse(readFileSync(kubeconfig, 'utf8')).users[0].user.token).toBe(server!.token);

    await server!.close();
    expect(existsSync(server!.dir)).toBe(false);
    expect(await connects(Number(new URL(server!.url).port))).toBe(false);
  }, 60_000);

  test('a binary that exits early fails the start with its output', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'envtest-broken-'));
    try {
      exe(broken, 'kube-apiserver', '#!/bin/sh\necho "flag provided but not defined" >&2\nexit 1\n');
      exe(broken, 'etcd', readFileSync(join(dir, 'etcd'), 'utf8'));
      await expect(startEnvtest({ env: { KUBEBUILDER_ASSETS: broken, PATH: '' }, startTimeoutMs: 10_000 })).rejects.toThrow(/kube-apiserver exited \(1\)[\s\S]*flag provided but not defined/);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  }, 30_000);
});

forEachApiServer('forEachApiServer smoke', (ctx) => {
  test('the SampleDB CRD is served and accepts a valid object', async () => {
    const k8s = loadClientNode();
    const api = ctx().server.kubeConfig().makeApiClient(k8s.CustomObjectsApi);
    const created: any = await api.createNamespacedCustomObject({
      group: 'db.example.com', version: 'v1', plural: 'sampledbs', namespace: 'default',
      body: { apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name: 'smoke' }, spec: {} },
    });
    expect(created.spec.replicas).toBe(1);
    if (ctx().kind === 'fake') expect(ctx().fake?.get('db.example.com/v1', 'SampleDB', 'default', 'smoke')).toBeDefined();
    else expect(ctx().fake).toBeUndefined();
  });
}, { crds: [sampleDbCrd()] });
