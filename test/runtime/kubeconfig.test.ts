import * as fs from 'fs';
import type * as https from 'https';
import * as os from 'os';
import * as path from 'path';
import { RestClient } from '../../runtime/client';
import { loadClientNode } from '../../runtime/client-node';
import { LightKubeConfig, loadDefaultConnection } from '../../runtime/kubeconfig';
import { describeRealApiServer } from '../envtest';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'ctx',
    clusters: [
      { name: 'other', cluster: { server: 'https://wrong:1' } },
      { name: 'c', cluster },
    ],
    users: [
      { name: 'u', user },
      { name: 'other', user: { token: 'wrong' } },
    ],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', namespace: 'team-a' } }],
  });
}

/** What a kubeconfig loader puts into the request options (Buffers as text, for comparison). */
async function optionsOf(config: {
  applyToHTTPSOptions(o: https.RequestOptions): Promise<void>;
  getCurrentCluster(): { server: string } | null;
}): Promise<object> {
  const o: https.RequestOptions = {};
  await config.applyToHTTPSOptions(o);
  const text = (v: unknown) => (Buffer.isBuffer(v) ? v.toString() : v);
  return {
    server: config.getCurrentCluster()?.server,
    ca: text(o.ca),
    cert: text(o.cert),
    key: text(o.key),
    rejectUnauthorized: o.rejectUnauthorized,
    servername: o.servername,
    authorization: (o.headers as Record<string, string> | undefined)?.Authorization,
    auth: o.auth,
  };
}

describe('LightKubeConfig', () => {
  // Created when the tests are collected: the tables below name its files.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubeconfig-'));
  beforeAll(() => {
    fs.mkdirSync(path.join(dir, 'pki'));
    fs.writeFileSync(path.join(dir, 'pki', 'ca.crt'), 'CA FROM FILE');
    fs.writeFileSync(path.join(dir, 'pki', 'client.crt'), 'CERT FROM FILE');
    fs.writeFileSync(path.join(dir, 'pki', 'client.key'), 'KEY FROM FILE');
    fs.writeFileSync(path.join(dir, 'token'), 'token-from-file');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string) => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, text);
    return f;
  };

  // client-node is the oracle: for every shape the light loader takes, both give the same request options.
  test.each([
    [
      'token, CA data',
      { server: 'https://k8s.example:6443/', 'certificate-authority-data': b64('CA DATA') },
      { token: 'abc' },
    ],
    [
      'client certificate data',
      { server: 'https://k8s.example:6443', 'certificate-authority-data': b64('CA DATA') },
      { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') },
    ],
    [
      'files relative to the kubeconfig',
      { server: 'https://k8s.example', 'certificate-authority': path.join(dir, 'pki/ca.crt') },
      { 'client-certificate': path.join(dir, 'pki/client.crt'), 'client-key': path.join(dir, 'pki/client.key') },
    ],
    [
      'insecure, tls-server-name, basic auth',
      { server: 'https://10.0.0.1', 'insecure-skip-tls-verify': true, 'tls-server-name': 'api.internal' },
      { username: 'admin', password: 'secret' },
    ],
    [
      'http, token before token-file',
      { server: 'http://127.0.0.1:8080', 'insecure-skip-tls-verify': true },
      { token: 'first', 'token-file': path.join(dir, 'token') },
    ],
    ['token-file', { server: 'https://k8s.example' }, { 'token-file': path.join(dir, 'token') }],
  ])('%s: the same request options as client-node', async (name, cluster, user) => {
    const file = write(`${name.replace(/\W+/g, '-')}.yaml`, kubeconfig(cluster, user));
    const light = LightKubeConfig.fromFile(file);
    expect(light).toBeInstanceOf(LightKubeConfig);
    const kc = new (loadClientNode().KubeConfig)();
    kc.loadFromFile(file);
    expect(await optionsOf(light!)).toStrictEqual(await optionsOf(kc));
  });

  test('http:// without insecure-skip-tls-verify is refused, as client-node refuses it', async () => {
    const file = write('http.yaml', kubeconfig({ server: 'http://127.0.0.1:8080' }, { token: 'x' }));
    const kc = new (loadClientNode().KubeConfig)();
    kc.loadFromFile(file);
    const refused = /HTTP protocol is not allowed/;
    await expect(optionsOf(kc)).rejects.toThrow(refused);
    await expect(optionsOf(LightKubeConfig.fromFile(file)!)).rejects.toThrow(refused);
  });

  test("relative paths are resolved against the kubeconfig's folder", async () => {
    const file = write(
      'relative.yaml',
      kubeconfig(
        { server: 'https://k8s.example', 'certificate-authority': 'pki/ca.crt' },
        { 'client-certificate': 'pki/client.crt', 'client-key': './pki/client.key' },
      ),
    );
    expect(await optionsOf(LightKubeConfig.fromFile(file)!)).toMatchObject({
      ca: 'CA FROM FILE',
      cert: 'CERT FROM FILE',
      key: 'KEY FROM FILE',
    });
  });

  test.each([
    [
      'an exec plugin',
      { server: 'https://k8s.example' },
      { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws' } },
    ],
    ['an auth-provider', { server: 'https://k8s.example' }, { 'auth-provider': { name: 'oidc' } }],
    ['a proxy', { server: 'https://k8s.example', 'proxy-url': 'socks5://proxy:1080' }, { token: 'x' }],
    ['impersonation', { server: 'https://k8s.example' }, { token: 'x', as: 'someone' }],
  ])('leaves %s to client-node', (name, cluster, user) => {
    expect(
      LightKubeConfig.fromFile(write(`fallback-${name.replace(/\W+/g, '-')}.yaml`, kubeconfig(cluster, user))),
    ).toBeUndefined();
  });

  test('loadDefaultConnection: one KUBECONFIG file is read without client-node; several are merged by client-node', () => {
    const a = write('a.yaml', kubeconfig({ server: 'https://a.example' }, { token: 'a' }));
    const b = write('b.yaml', kubeconfig({ server: 'https://b.example' }, { token: 'b' }));
    expect(loadDefaultConnection({ KUBECONFIG: a }, dir)).toBeInstanceOf(LightKubeConfig);
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = [a, b].join(path.delimiter);
    try {
      const merged = loadDefaultConnection(process.env, dir);
      expect(merged).not.toBeInstanceOf(LightKubeConfig);
      const kc = new (loadClientNode().KubeConfig)();
      kc.loadFromDefault();
      expect(merged.getCurrentCluster()).toStrictEqual(kc.getCurrentCluster());
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  });

  test('in a pod: the ServiceAccount token (re-read once a minute), its CA, KUBERNETES_SERVICE_HOST/PORT (IPv6 in brackets)', async () => {
    const sa = fs.mkdtempSync(path.join(dir, 'sa-'));
    fs.writeFileSync(path.join(sa, 'token'), 'sa-token');
    fs.writeFileSync(path.join(sa, 'ca.crt'), 'SA CA');
    const light = LightKubeConfig.inCluster(sa, {
      KUBERNETES_SERVICE_HOST: 'fd00::1',
      KUBERNETES_SERVICE_PORT: '443',
    })!;
    expect(await optionsOf(light)).toMatchObject({
      server: 'https://[fd00::1]:443',
      ca: 'SA CA',
      authorization: 'Bearer sa-token',
    });
    // a changing credential: the transport asks again for it
    expect(light.getCurrentUser().authProvider).toBeDefined();
    fs.writeFileSync(path.join(sa, 'token'), 'rotated');
    expect(await optionsOf(light)).toMatchObject({ authorization: 'Bearer sa-token' });
    const later = Date.now() + 61_000;
    const now = jest.spyOn(Date, 'now').mockReturnValue(later);
    try {
      expect(await optionsOf(light)).toMatchObject({ authorization: 'Bearer rotated' });
    } finally {
      now.mockRestore();
    }
    expect(LightKubeConfig.inCluster(path.join(dir, 'no-such-dir'), {})).toBeUndefined();
  });

  test("a kubeconfig's token-file is re-read once a minute, as client-go re-reads a BearerTokenFile (`cdk8s-operator run` refreshes it)", async () => {
    const token = write('refreshed-token', 'first');
    const light = LightKubeConfig.fromFile(
      write('token-file-refresh.yaml', kubeconfig({ server: 'https://k8s.example' }, { 'token-file': token })),
    )!;
    expect(await optionsOf(light)).toMatchObject({ authorization: 'Bearer first' });
    expect(light.getCurrentUser().authProvider).toBeDefined();
    fs.writeFileSync(token, 'second');
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 61_000);
    try {
      expect(await optionsOf(light)).toMatchObject({ authorization: 'Bearer second' });
    } finally {
      now.mockRestore();
    }
  });
});

describeRealApiServer(
  'LightKubeConfig on the apiserver',
  (plane) => {
    test('a client built from the light config of a written kubeconfig talks to the apiserver', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubeconfig-'));
      try {
        const file = path.join(dir, 'config');
        plane().writeKubeconfig(file);
        const light = LightKubeConfig.fromFile(file);
        expect(light).toBeInstanceOf(LightKubeConfig);
        const client = RestClient.fromKubeConfig(light!);
        try {
          const namespaces = await client.list({ apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces' });
          expect(namespaces.items.map((n) => n.metadata?.name)).toContain('default');
        } finally {
          client.close();
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  },
  { shared: true },
);
