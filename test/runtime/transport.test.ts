import * as http from 'http';
import { AddressInfo } from 'net';
import { loadClientNode } from '../../runtime/client-node';
import { KubeConfigTransport } from '../../runtime/transport';

/** A plain-HTTP stand-in for the apiserver that records each request's Authorization header. */
async function recordingServer(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers.authorization ?? '');
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function kubeConfig(server: string, user: object) {
  const kc = new (loadClientNode().KubeConfig)();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', ...user }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return kc;
}

describe('KubeConfigTransport credentials', () => {
  test('static credentials (a token in the kubeconfig) are resolved once, not per request', async () => {
    const server = await recordingServer();
    const kc = kubeConfig(server.url, { token: 'static-token' });
    const spy = jest.spyOn(kc, 'applyToHTTPSOptions');
    const transport = new KubeConfigTransport(kc);
    try {
      for (let i = 0; i < 3; i++) {
        expect(
          (await transport.request({ method: 'GET', path: '/api', headers: { Accept: 'application/json' } })).status,
        ).toBe(200);
      }
      expect(server.seen).toEqual(['Bearer static-token', 'Bearer static-token', 'Bearer static-token']);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      transport.close();
      await server.close();
    }
  });

  test('credentials that can change (an exec plugin) are asked for again once a second', async () => {
    const server = await recordingServer();
    const kc = kubeConfig(server.url, {
      exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'never-run' },
    });
    let issued = 0;
    // Stands in for the plugin: each call hands out a fresh token, as a rotating credential would.
    jest.spyOn(kc, 'applyToHTTPSOptions').mockImplementation(async (opts) => {
      opts.headers = { ...(opts.headers ?? {}), Authorization: `Bearer rotated-${++issued}` };
    });
    let now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const transport = new KubeConfigTransport(kc);
    try {
      for (let i = 0; i < 3; i++) await transport.request({ method: 'GET', path: '/api' });
      now += 1000;
      await transport.request({ method: 'GET', path: '/api' });
      now += 999;
      await transport.request({ method: 'GET', path: '/api' });
      now += 1;
      await transport.request({ method: 'GET', path: '/api' });
      expect(server.seen).toEqual([
        'Bearer rotated-1',
        'Bearer rotated-1',
        'Bearer rotated-1',
        'Bearer rotated-2',
        'Bearer rotated-2',
        'Bearer rotated-3',
      ]);
    } finally {
      jest.restoreAllMocks();
      transport.close();
      await server.close();
    }
  });
});

describe('KubeConfigTransport bodies', () => {
  /** Answers with a body written in several chunks, or cut off halfway (`/cut`); echoes request bodies in a header. */
  async function chunkingServer(): Promise<{ url: string; close(): Promise<void> }> {
    const server = http.createServer((req, res) => {
      let received = '';
      req.on('data', (c: Buffer) => {
        received += c.toString();
      });
      req.on('end', () => {
        const body = JSON.stringify({
          items: Array.from({ length: 2000 }, (_, i) => ({ name: `item-${i}`, note: 'ü'.repeat(10) })),
        });
        res.writeHead(200, {
          'Content-Type': 'application/json',
          'Content-Length': String(Buffer.byteLength(body)),
          'X-Received': encodeURIComponent(received),
        });
        const bytes = Buffer.from(body);
        if (req.url === '/cut') {
          res.write(bytes.subarray(0, 1000));
          setTimeout(() => res.socket?.destroy(), 20);
          return;
        }
        // Split inside a multi-byte character too: the body is decoded once, whole.
        for (let at = 0; at < bytes.length; at += 4099) res.write(bytes.subarray(at, at + 4099));
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  test('a body in many chunks arrives whole; the request body is sent', async () => {
    const server = await chunkingServer();
    const transport = new KubeConfigTransport(kubeConfig(server.url, { token: 't' }));
    try {
      const res = await transport.request({ method: 'POST', path: '/x', body: '{"spec":"ä"}' });
      expect(res.status).toBe(200);
      expect(decodeURIComponent(res.headers['x-received']!)).toBe('{"spec":"ä"}');
      const parsed = JSON.parse(res.body) as { items: Array<{ name: string; note: string }> };
      expect(parsed.items).toHaveLength(2000);
      expect(parsed.items[1999]).toEqual({ name: 'item-1999', note: 'ü'.repeat(10) });
    } finally {
      transport.close();
      await server.close();
    }
  });

  test('a connection lost mid-body rejects with ECONNRESET (the client retries idempotent requests on it)', async () => {
    const server = await chunkingServer();
    const transport = new KubeConfigTransport(kubeConfig(server.url, { token: 't' }));
    try {
      await expect(transport.request({ method: 'GET', path: '/cut' })).rejects.toMatchObject({ code: 'ECONNRESET' });
    } finally {
      transport.close();
      await server.close();
    }
  });
});
