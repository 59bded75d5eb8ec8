/**
 * An envtest-style control plane: real etcd + kube-apiserver binaries on loopback ports, like
 * controller-runtime's pkg/envtest. Used only when KUBEBUILDER_ASSETS names a folder with `kube-apiserver`
 * (etcd from that folder or PATH); otherwise `startEnvtest()` resolves to undefined and callers skip.
 *
 * Differences from controller-runtime: authentication is a static bearer token (--token-auth-file, user in
 * system:masters) instead of a generated client certificate, and the apiserver generates its own self-signed
 * serving certificate in --cert-dir (clients skip TLS verification on loopback).
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { loadClientNode } from '../fake-apiserver/client-node';

export interface EnvtestAssets {
  readonly kubeApiServer: string;
  readonly etcd: string;
}

export type AssetLookup = { readonly assets: EnvtestAssets } | { readonly skipReason: string };

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds kube-apiserver in KUBEBUILDER_ASSETS and etcd there or on PATH; explains why not otherwise. */
export function findEnvtestAssets(env: NodeJS.ProcessEnv = process.env): AssetLookup {
  const dir = env.KUBEBUILDER_ASSETS;
  if (!dir) return { skipReason: 'KUBEBUILDER_ASSETS not set' };
  const kubeApiServer = join(dir, 'kube-apiserver');
  if (!isExecutable(kubeApiServer)) return { skipReason: `kube-apiserver not found in KUBEBUILDER_ASSETS (${dir})` };
  const candidates = [join(dir, 'etcd'), ...(env.PATH ?? '').split(delimiter).filter(Boolean).map((p) => join(p, 'etcd'))];
  const etcd = candidates.find(isExecutable);
  if (!etcd) return { skipReason: `etcd not found in KUBEBUILDER_ASSETS (${dir}) or on PATH` };
  return { assets: { kubeApiServer, etcd } };
}

/** A free loopback TCP port (the OS picks; there is a small race until the child binds it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface ControlPlaneLayout {
  readonly dir: string;
  readonly etcdPort: number;
  readonly etcdPeerPort: number;
  readonly apiServerPort: number;
  readonly token: string;
}

/** Whether a binary's --help mentions a flag (controller-runtime's processState.CheckFlag). */
export function supportsFlag(bin: string, flag: string): boolean {
  const r = spawnSync(bin, ['--help'], { encoding: 'utf8', timeout: 10_000 });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`.includes(`--${flag}`);
}

/** etcd flags as controller-runtime's envtest sets them (`--unsafe-no-fsync` only where etcd has it: 3.5+). */
export function etcdArgs(l: ControlPlaneLayout, noFsync = true): string[] {
  const client = `http://127.0.0.1:${l.etcdPort}`;
  return [
    `--data-dir=${join(l.dir, 'etcd')}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=http://127.0.0.1:${l.etcdPeerPort}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${l.etcdPeerPort}`,
    `--initial-cluster=default=http://127.0.0.1:${l.etcdPeerPort}`,
    ...(noFsync ? ['--unsafe-no-fsync=true'] : []),
  ];
}

/** kube-apiserver flags following controller-runtime's envtest defaults (APIServer.defaultArgs). */
export function apiServerArgs(l: ControlPlaneLayout): string[] {
  return [
    `--etcd-servers=http://127.0.0.1:${l.etcdPort}`,
    `--cert-dir=${join(l.dir, 'certs')}`,
    `--secure-port=${l.apiServerPort}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    '--service-cluster-ip-range=10.0.0.0/24',
    '--allow-privileged=true',
    // as envtest: no default ServiceAccount exists without the controller-manager
    '--disable-admission-plugins=ServiceAccount',
    '--authorization-mode=RBAC',
    `--service-account-issuer=https://127.0.0.1:${l.apiServerPort}/`,
    `--service-account-key-file=${join(l.dir, 'sa.pub')}`,
    `--service-account-signing-key-file=${join(l.dir, 'sa.key')}`,
    `--token-auth-file=${join(l.dir, 'tokens.csv')}`,
  ];
}

/** Writes the service-account key pair and the static token file into the layout's folder. */
export function writeControlPlaneFiles(l: ControlPlaneLayout): void {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(join(l.dir, 'sa.key'), privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
  writeFileSync(join(l.dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
  // token,user,uid,"group1,group2"
  writeFileSync(join(l.dir, 'tokens.csv'), `${l.token},envtest-admin,envtest-admin,"system:masters"\n`, { mode: 0o600 });
}

function probe(url: string, token?: string): Promise<number> {
  return new Promise((resolve) => {
    const u = new URL(url);
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, {
      method: 'GET', rejectUnauthorized: false, timeout: 2000,
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => {
      req.destroy();
      resolve(0);
    });
    req.end();
  });
}

async function waitReady(name: string, url: string, token: string | undefined, child: ChildProcess, timeoutMs: number, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`envtest: ${name} exited (${child.exitCode ?? child.signalCode}) before becoming ready:\n${log()}`);
    }
    if ((await probe(url, token)) === 200) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`envtest: ${name} not ready at ${url} after ${timeoutMs} ms:\n${log()}`);
}

function startProcess(bin: string, args: string[]): { child: ChildProcess; log: () => string } {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, log: () => out };
}

async function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** What a test can rely on from either the fake or the real apiserver. */
export interface ApiServerEndpoint {
  readonly url: string;
  /** The all-powerful (system:masters) bearer token. */
  readonly adminToken: string;
  /** A KubeConfig for the admin, or for another bearer token (e.g. from the TokenRequest API). */
  kubeConfig(opts?: { token?: string }): KubeConfig;
  writeKubeconfig(path: string, opts?: { token?: string }): void;
  close(): Promise<void>;
}

export interface EnvtestOptions {
  /** CRD manifests to install (waits until Established). */
  readonly crds?: object[];
  /** How long etcd and kube-apiserver may take to become ready. @default 60000 */
  readonly startTimeoutMs?: number;
  readonly env?: NodeJS.ProcessEnv;
}

export interface EnvtestApiServer extends ApiServerEndpoint {
  readonly token: string;
  readonly dir: string;
}

/** Starts etcd + kube-apiserver; resolves undefined (with the reason on `lastSkipReason`) when the binaries are missing. */
export async function startEnvtest(opts: EnvtestOptions = {}): Promise<EnvtestApiServer | undefined> {
  const lookup = findEnvtestAssets(opts.env);
  if ('skipReason' in lookup) {
    lastSkipReason = lookup.skipReason;
    return undefined;
  }
  const { assets } = lookup;
  const dir = mkdtempSync(join(tmpdir(), 'envtest-'));
  const layout: ControlPlaneLayout = {
    dir, etcdPort: await freePort(), etcdPeerPort: await freePort(), apiServerPort: await freePort(), token: randomBytes(24).toString('hex'),
  };
  writeControlPlaneFiles(layout);
  const timeout = opts.startTimeoutMs ?? 60_000;
  const etcd = startProcess(assets.etcd, etcdArgs(layout, supportsFlag(assets.etcd, 'unsafe-no-fsync')));
  let apiserver: { child: ChildProcess; log: () => string } | undefined;
  const url = `https://127.0.0.1:${layout.apiServerPort}`;
  const cleanup = async () => {
    if (apiserver) await stopProcess(apiserver.child);
    await stopProcess(etcd.child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitReady('etcd', `http://127.0.0.1:${layout.etcdPort}/health`, undefined, etcd.child, timeout, etcd.log);
    apiserver = startProcess(assets.kubeApiServer, apiServerArgs(layout));
    await waitReady('kube-apiserver', `${url}/readyz`, layout.token, apiserver.child, timeout, apiserver.log!);
  } catch (e) {
    await cleanup();
    throw e;
  }
  const server: EnvtestApiServer = {
    url, token: layout.token, adminToken: layout.token, dir,
    kubeConfig: (o) => kubeConfigFor(url, o?.token ?? layout.token),
    writeKubeconfig: (path, o) => writeKubeconfigFile(path, url, o?.token ?? layout.token),
    close: cleanup,
  };
  if (opts.crds?.length) await installCrds({ url, token: layout.token }, opts.crds, timeout);
  return server;
}

/** Why the last startEnvtest() call returned undefined. */
export let lastSkipReason = '';

export function kubeConfigFor(url: string, token: string): KubeConfig {
  const k8s = loadClientNode();
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'envtest', server: url, skipTLSVerify: true }],
    users: [{ name: 'envtest-admin', token }],
    contexts: [{ name: 'envtest', cluster: 'envtest', user: 'envtest-admin', namespace: 'default' }],
    currentContext: 'envtest',
  });
  return kc;
}

export function writeKubeconfigFile(path: string, url: string, token: string): void {
  const doc = {
    'apiVersion': 'v1', 'kind': 'Config',
    'clusters': [{ name: 'envtest', cluster: { 'server': url, 'insecure-skip-tls-verify': true } }],
    'users': [{ name: 'envtest-admin', user: { token } }],
    'contexts': [{ name: 'envtest', context: { cluster: 'envtest', user: 'envtest-admin', namespace: 'default' } }],
    'current-context': 'envtest',
  };
  writeFileSync(path, JSON.stringify(doc, null, 2), { mode: 0o600 });
}

/** A JSON request with a bearer token (TLS verification off: loopback test servers only). */
export function rawRequest(baseUrl: string, token: string | undefined, method: string, path: string, body?: unknown): Promise<{ code: number; body: any }> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, baseUrl);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string | number> = { Accept: 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (payload !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = Buffer.byteLength(payload);
    }
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, { method, headers, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: any = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON
        }
        resolve({ code: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/**
 * Creates CRDs through the API and waits for each to report Established=True (like envtest.InstallCRDs).
 * Raw JSON on purpose: client-node's typed serializer drops `x-kubernetes-*` schema keys of plain objects.
 */
export async function installCrds(server: { readonly url: string; readonly token?: string }, crds: object[], timeoutMs = 30_000): Promise<void> {
  for (const crd of crds as any[]) {
    const r = await rawRequest(server.url, server.token, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    if (r.code !== 201 && r.code !== 409) throw new Error(`envtest: creating CRD ${crd.metadata?.name} failed (${r.code}): ${JSON.stringify(r.body)}`);
  }
  const deadline = Date.now() + timeoutMs;
  for (const crd of crds as any[]) {
    for (;;) {
      const got = await rawRequest(server.url, server.token, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
      if ((got.body?.status?.conditions ?? []).some((c: any) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error(`envtest: CRD ${crd.metadata.name} not Established after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
