/** The config-reloader sidecar and the alert receiver, as processes' logic on localhost. */
import * as fs from 'fs';
import { createServer, request, Server } from 'http';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { startReceiver } from '../../../controllers/monitoring/receiver';
import { hashDirectories, run } from '../../../controllers/monitoring/reloader';
import { sleep, until } from '../../runtime/support';

function http(method: string, url: string, body?: string): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let data = '';
      res.on('data', (c) => {
        data += c;
      });
      res.on('end', () => resolve({ code: res.statusCode ?? 0, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('config-reloader', () => {
  let dir: string;
  let server: Server;
  let reloads = 0;
  let status = 200;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reloader-'));
    reloads = 0;
    status = 200;
    server = createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/-/reload') reloads++;
      res.writeHead(status).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterEach(() => {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Writes files as the kubelet does: a new timestamped directory, then `..data` and the file links swapped. */
  function project(files: Record<string, string>, n: number): void {
    const data = path.join(dir, `..2026_${n}`);
    fs.mkdirSync(data);
    for (const [k, v] of Object.entries(files)) fs.writeFileSync(path.join(data, k), v);
    fs.rmSync(path.join(dir, '..data'), { force: true });
    fs.symlinkSync(path.basename(data), path.join(dir, '..data'));
    for (const k of Object.keys(files)) {
      if (!fs.existsSync(path.join(dir, k))) fs.symlinkSync(path.join('..data', k), path.join(dir, k));
    }
  }

  test("reloads once at start, once per content change seen through the kubelet's symlinks, never for the same content", async () => {
    project({ 'prometheus.yaml': 'a' }, 1);
    const h1 = hashDirectories([dir]);
    const timer = run([dir], `http://127.0.0.1:${(server.address() as AddressInfo).port}/-/reload`, 100);
    try {
      await until('first reload', () => reloads === 1);
      project({ 'prometheus.yaml': 'a' }, 2); // a new projection with the same content
      expect(hashDirectories([dir])).toBe(h1);
      await sleep(400);
      expect(reloads).toBe(1);
      project({ 'prometheus.yaml': 'b' }, 3);
      await until('second reload', () => reloads === 2);
      await sleep(400);
      expect(reloads).toBe(2);
    } finally {
      clearInterval(timer);
    }
  });

  test('retries until the server accepts the reload', async () => {
    project({ 'prometheus.yaml': 'a' }, 1);
    status = 500;
    const timer = run([dir], `http://127.0.0.1:${(server.address() as AddressInfo).port}/-/reload`, 100);
    try {
      await until('several refused reloads', () => reloads >= 3);
      status = 200;
      const at = reloads;
      await until('accepted', () => reloads === at + 1);
      await sleep(400);
      expect(reloads).toBe(at + 1);
    } finally {
      clearInterval(timer);
    }
  });
});

describe('alert receiver', () => {
  test("keeps Alertmanager's notifications, serves them and counts them as a metric", async () => {
    const server = await startReceiver(0);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const payload = {
        version: '4',
        receiver: 'webhook',
        status: 'firing',
        alerts: [{ status: 'firing', labels: { alertname: 'SampledbOperatorDown' } }],
      };
      expect((await http('POST', `${base}/alerts`, JSON.stringify(payload))).code).toBe(200);
      expect((await http('POST', `${base}/alerts`, '{not json')).code).toBe(400);
      const got = JSON.parse((await http('GET', `${base}/alerts`)).body);
      expect(got).toStrictEqual([
        expect.objectContaining({ receiver: 'webhook', status: 'firing', alerts: payload.alerts }),
      ]);
      expect((await http('GET', `${base}/metrics`)).body).toContain('alert_receiver_notifications_total 1\n');
      expect((await http('GET', `${base}/healthz`)).code).toBe(200);
    } finally {
      server.close();
    }
  });
});
